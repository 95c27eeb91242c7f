package touchpoints

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/store/memstore"
)

// testAudit is an audit log for tests that do not read it: every game is of one studio.
func testAudit() *audit.Log {
	log, _ := auditfake.NewLog(&memstore.Runner{}, auditfake.OneStudio(uuid.New()))
	return log
}

// A tree's change writes its entry with the actor of the context; a change that fails writes
// none.
func TestTreeChangesAreAudited(t *testing.T) {
	t.Parallel()
	studioID, game := uuid.New(), uuid.New()
	actor := audit.Actor{Kind: audit.Operator, Name: "operator", IP: "203.0.113.1"}
	ctx := audit.WithActor(context.Background(), actor)
	log, entries := auditfake.NewLog(&memstore.Runner{}, auditfake.OneStudio(studioID))
	s := NewService(repoOf{&treeRepo{trees: map[string]Tree{}}}, Config{Currency: "INR", Audit: log})

	tr, created, err := s.PutTree(ctx, game, "Home", []Node{{DataType: DataAsset, Title: []TextItem{{Text: "Hi"}}}})
	require.NoError(t, err)
	require.True(t, created)
	require.NoError(t, s.DeleteTree(ctx, game, "Home"))
	require.ErrorIs(t, s.DeleteTree(ctx, game, "Home"), ErrTouchpointNotFound)

	all := entries.Entries()
	require.Len(t, all, 2, "the failed deletion wrote none")
	require.Equal(t, "tree.put", all[0].Action)
	require.Equal(t, studioID, all[0].StudioID)
	require.Equal(t, game, *all[0].GameID)
	require.Equal(t, tr.ID.String(), all[0].TargetID)
	require.Equal(t, map[string]string{"name": "Home", "created": "true", "nodes": "1"}, all[0].Details)
	require.Equal(t, actor, all[0].Actor)
	require.Equal(t, "tree.delete", all[1].Action)
	require.Equal(t, map[string]string{"name": "Home"}, all[1].Details)
}
