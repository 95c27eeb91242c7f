package studio_test

import (
	"context"
	"regexp"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

type bundle struct {
	svc   *studio.Service
	game  studio.NewGame
	audit *auditfake.Repo
}

func setup(t *testing.T) bundle {
	t.Helper()
	runner, games := &memstore.Runner{}, studiofake.New()
	entries := auditfake.New(games)
	svc := studio.NewService(memstore.New[studio.Repo](runner, games), audit.New(runner, memstore.New[audit.Repo](runner, entries)))
	ctx := context.Background()
	s, err := svc.CreateStudio(ctx, "Pixel Forge")
	require.NoError(t, err)
	g, err := svc.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Tower Tactics"})
	require.NoError(t, err)
	return bundle{svc: svc, game: g, audit: entries}
}

func TestCreateGameIssuesOneKeyPerEnvironment(t *testing.T) {
	t.Parallel()
	b := setup(t)
	require.Regexp(t, regexp.MustCompile(`^rk_live_[0-9A-Za-z]{32}$`), b.game.LiveKey)
	require.Regexp(t, regexp.MustCompile(`^rk_test_[0-9A-Za-z]{32}$`), b.game.TestKey)
	require.NotEqual(t, b.game.LiveKey[8:], b.game.TestKey[8:])
}

func TestCreateGameRejectsUnknownStudioAndBlankName(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.svc.CreateGame(context.Background(), studio.Game{StudioID: uuid.New(), Name: "x"})
	require.ErrorIs(t, err, studio.ErrStudioNotFound)
	_, err = b.svc.CreateGame(context.Background(), studio.Game{StudioID: b.game.StudioID, Name: "  "})
	require.ErrorIs(t, err, errs.ErrInvalid)
}

func TestAuthenticate(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	rotatedAway := b.game.TestKey
	newTest, err := b.svc.RotateKey(ctx, b.game.ID, studio.Test)
	require.NoError(t, err)

	tests := []struct {
		name    string
		key     string
		host    studio.Environment
		wantErr error
		wantEnv studio.Environment // for a wrong-environment error
	}{
		{name: "live key on live host", key: b.game.LiveKey, host: studio.Live},
		{name: "new test key on dev host", key: newTest, host: studio.Test},
		{name: "missing", key: "", host: studio.Test, wantErr: studio.ErrKeyMissing},
		{name: "malformed", key: "hello", host: studio.Test, wantErr: studio.ErrKeyUnknown},
		{name: "well-formed but unknown", key: "rk_test_" + studio.RandomBase62(32), host: studio.Test, wantErr: studio.ErrKeyUnknown},
		{name: "rotated away", key: rotatedAway, host: studio.Test, wantErr: studio.ErrKeyRevoked},
		{name: "live key on dev host", key: b.game.LiveKey, host: studio.Test, wantEnv: studio.Live},
		{name: "test key on live host", key: newTest, host: studio.Live, wantEnv: studio.Test},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			caller, err := b.svc.Authenticate(ctx, tt.key, tt.host)
			switch {
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
			case tt.wantEnv != "":
				require.ErrorIs(t, err, studio.ErrKeyWrongEnvironment)
				require.Contains(t, err.Error(), "belongs to the "+string(tt.wantEnv)+" environment", "the error names the key's environment")
			default:
				require.NoError(t, err)
				require.Equal(t, b.game.ID, caller.GameID)
				require.Equal(t, b.game.StudioID, caller.StudioID)
				require.Equal(t, tt.host, caller.Environment)
			}
		})
	}
}

func TestRotateKeyRejectsUnknownEnvironmentAndGame(t *testing.T) {
	t.Parallel()
	b := setup(t)
	_, err := b.svc.RotateKey(context.Background(), b.game.ID, "staging")
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, err = b.svc.RotateKey(context.Background(), uuid.New(), studio.Live)
	require.ErrorIs(t, err, studio.ErrGameNotFound)
}

func TestRandomBase62(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		s := studio.RandomBase62(32)
		require.Len(t, s, 32)
		require.Regexp(t, `^[0-9A-Za-z]+$`, s)
		require.False(t, seen[s])
		seen[s] = true
	}
}

func TestListGamesOldestFirst(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	second, err := b.svc.CreateGame(ctx, studio.Game{StudioID: b.game.StudioID, Name: "  Second  "})
	require.NoError(t, err)
	require.Equal(t, "Second", second.Name, "names are trimmed")

	games, err := b.svc.ListGames(ctx, b.game.StudioID)
	require.NoError(t, err)
	require.Len(t, games, 2)
	require.Equal(t, []uuid.UUID{b.game.ID, second.ID}, []uuid.UUID{games[0].ID, games[1].ID})

	_, err = b.svc.ListGames(ctx, uuid.New())
	require.ErrorIs(t, err, studio.ErrStudioNotFound)
}

func TestServerSecretIsIssuedAndReplaced(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.svc.IssueServerSecret(ctx, b.game.ID, studio.Test)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^rks_test_[0-9A-Za-z]{32}$`), first)
	live, err := b.svc.IssueServerSecret(ctx, b.game.ID, studio.Live)
	require.NoError(t, err)
	require.Regexp(t, regexp.MustCompile(`^rks_live_[0-9A-Za-z]{32}$`), live)
	second, err := b.svc.IssueServerSecret(ctx, b.game.ID, studio.Test)
	require.NoError(t, err)
	require.NotEqual(t, first, second)

	_, err = b.svc.IssueServerSecret(ctx, b.game.ID, "staging")
	require.ErrorIs(t, err, errs.ErrInvalid)
	_, err = b.svc.IssueServerSecret(ctx, uuid.New(), studio.Test)
	require.ErrorIs(t, err, studio.ErrGameNotFound)
	_, err = b.svc.SetServerOnlyCoinMovements(ctx, uuid.New(), true)
	require.ErrorIs(t, err, studio.ErrGameNotFound)

	// With the setting on, only the current secret of the caller's game and environment will do.
	g, err := b.svc.SetServerOnlyCoinMovements(ctx, b.game.ID, true)
	require.NoError(t, err)
	require.True(t, g.ServerOnlyCoinMovements)
	caller, err := b.svc.Authenticate(ctx, b.game.TestKey, studio.Test)
	require.NoError(t, err)
	require.True(t, caller.ServerOnlyCoinMovements)
	require.NoError(t, b.svc.AuthorizeCoinMovement(ctx, caller, second))
	for _, bad := range []string{"", first, live, "rks_test_" + studio.RandomBase62(32), "rk_test_x", b.game.TestKey} {
		err := b.svc.AuthorizeCoinMovement(ctx, caller, bad)
		require.ErrorIs(t, err, studio.ErrServerSecretRequired, "secret %q", bad)
		require.Equal(t, errs.Forbidden, errs.KindOf(err))
	}
	other, err := b.svc.CreateGame(ctx, studio.Game{StudioID: b.game.StudioID, Name: "Other"})
	require.NoError(t, err)
	otherSecret, err := b.svc.IssueServerSecret(ctx, other.ID, studio.Test)
	require.NoError(t, err)
	require.ErrorIs(t, b.svc.AuthorizeCoinMovement(ctx, caller, otherSecret), studio.ErrServerSecretRequired)

	// With it off (the default), no secret is needed.
	otherCaller, err := b.svc.Authenticate(ctx, other.TestKey, studio.Test)
	require.NoError(t, err)
	require.False(t, otherCaller.ServerOnlyCoinMovements)
	require.NoError(t, b.svc.AuthorizeCoinMovement(ctx, otherCaller, ""))
	g, err = b.svc.SetServerOnlyCoinMovements(ctx, b.game.ID, false)
	require.NoError(t, err)
	require.False(t, g.ServerOnlyCoinMovements)
	caller, err = b.svc.Authenticate(ctx, b.game.TestKey, studio.Test)
	require.NoError(t, err)
	require.NoError(t, b.svc.AuthorizeCoinMovement(ctx, caller, ""))
	games, err := b.svc.ListGames(ctx, b.game.StudioID)
	require.NoError(t, err)
	require.False(t, games[0].ServerOnlyCoinMovements)
}

// A game's store address can be replaced (the links of its touchpoints follow) or cleared;
// only absolute http(s) addresses are kept.
func TestSetStoreURL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	g, err := b.svc.SetStoreURL(ctx, b.game.ID, "http://localhost:9090/store/")
	require.NoError(t, err)
	require.Equal(t, "http://localhost:9090/store", g.StoreURL)
	got, err := b.svc.GetGame(ctx, b.game.ID)
	require.NoError(t, err)
	require.Equal(t, "http://localhost:9090/store", got.StoreURL)
	g, err = b.svc.SetStoreURL(ctx, b.game.ID, "")
	require.NoError(t, err)
	require.Empty(t, g.StoreURL)
	for _, bad := range []string{"javascript:alert(1)", "/store", "ftp://x.example.com"} {
		_, err := b.svc.SetStoreURL(ctx, b.game.ID, bad)
		require.ErrorIs(t, err, errs.ErrInvalid, bad)
	}
	_, err = b.svc.SetStoreURL(ctx, uuid.New(), "https://store.example.com")
	require.ErrorIs(t, err, studio.ErrGameNotFound)
}
