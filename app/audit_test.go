package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/core/audit"
)

// An operator's changes through /admin/v1 are in the studio's audit log as the operator's, with
// the client's address and user agent, and never with the key or secret they issued; a change
// that fails leaves no entry.
func TestOperatorChangesAreAudited(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	a := setupOn(t, pool)
	st := a.admin("POST", "/admin/v1/studios", `{"name":"Pixel Forge"}`)
	require.Equal(t, 201, st.Status, string(st.Raw))
	studioID := uuid.MustParse(st.Body["id"].(string))
	g := a.admin("POST", "/admin/v1/studios/"+studioID.String()+"/games", `{"name":"Tower Tactics"}`)
	require.Equal(t, 201, g.Status, string(g.Raw))
	gameID := g.Body["id"].(string)
	keys := g.Body["apiKeys"].(map[string]any)

	rot := a.admin("POST", "/admin/v1/games/"+gameID+"/api-keys/test/rotate", "")
	require.Equal(t, 201, rot.Status, string(rot.Raw))
	newKey := rot.Body["apiKey"].(string)
	secret := a.admin("POST", "/admin/v1/games/"+gameID+"/partner/test/secret", "")
	require.Equal(t, 201, secret.Status, string(secret.Raw))
	settings := a.admin("PUT", "/admin/v1/games/"+gameID+"/partner", `{"enabled":true,"settlement":"WALLET","discountPct":2.5}`)
	require.Equal(t, 200, settings.Status, string(settings.Raw))
	// Another game's rotation fails, and writes nothing.
	requireError(t, a.admin("POST", "/admin/v1/games/"+uuid.NewString()+"/api-keys/test/rotate", ""), 404, "GAME_NOT_FOUND")

	list, err := audit.New(postgres.NewDB(pool), postgres.NewAuditStore(postgres.NewDB(pool))).List(context.Background(),
		audit.Filter{StudioID: studioID})
	require.NoError(t, err)
	actions := []string{}
	for _, e := range list {
		actions = append(actions, e.Action)
	}
	require.Equal(t, []string{"partner_settings.put", "partner_secret.issue", "api_key.rotate", "game.create", "studio.create"}, actions)
	// Enabling issued the live client secret in the same transaction: said, never shown.
	require.Equal(t, map[string]string{"enabled": "true", "settlement": "WALLET", "discountPct": "2.5", "liveSecretIssued": "true"}, list[0].Details)

	e := list[2]
	require.Equal(t, audit.Operator, e.Actor.Kind)
	require.Equal(t, "operator", e.Actor.Name)
	require.Equal(t, "127.0.0.1", e.Actor.IP)
	require.Equal(t, "Go-http-client/1.1", e.Actor.UserAgent)
	require.Equal(t, gameID, e.GameID.String())
	require.Equal(t, "test", e.Environment)
	require.Equal(t, "game", e.TargetType)
	require.Equal(t, gameID, e.TargetID)

	issued := []string{newKey, keys["live"].(string), keys["test"].(string), secret.Body["clientSecret"].(string)}
	if live, ok := settings.Body["liveClientSecret"].(string); ok {
		issued = append(issued, live)
	}
	for _, e := range list {
		require.Equal(t, audit.Operator, e.Actor.Kind, e.Action)
		fields := []string{e.Actor.Name, e.TargetID, e.TargetType}
		for _, v := range e.Details {
			fields = append(fields, v)
		}
		for _, f := range fields {
			for _, s := range issued {
				require.NotEmpty(t, s)
				require.False(t, strings.Contains(f, s[len(s)-8:]), "%s holds an issued secret: %q", e.Action, f)
			}
		}
	}
}

// The operator's changes of a game's coins and of its view of a shared reward are a studio's
// data too: each is in the studio's log, in the change's transaction.
func TestOperatorCoinAndRewardChangesAreAudited(t *testing.T) {
	t.Parallel()
	pool := pgtest.Pool(t)
	a := setupOn(t, pool)
	st := a.admin("POST", "/admin/v1/studios", `{"name":"Coin Works"}`)
	require.Equal(t, 201, st.Status, string(st.Raw))
	studioID := uuid.MustParse(st.Body["id"].(string))
	g := a.admin("POST", "/admin/v1/studios/"+studioID.String()+"/games", `{"name":"Mint"}`)
	require.Equal(t, 201, g.Status, string(g.Raw))
	gameID := g.Body["id"].(string)
	c := a.admin("POST", "/admin/v1/games/"+gameID+"/coins", `{"name":"Gems","imageUrl":"https://example.com/gem.png"}`)
	require.Equal(t, 201, c.Status, string(c.Raw))
	coinID := c.Body["id"].(string)
	v := a.admin("PATCH", "/admin/v1/coins/"+coinID, `{"coinsPerUnit":250}`)
	require.Equal(t, 200, v.Status, string(v.Raw))
	requireError(t, a.admin("PATCH", "/admin/v1/coins/"+uuid.NewString(), `{"coinsPerUnit":250}`), 404, "COIN_NOT_FOUND")
	b := a.admin("PUT", "/admin/v1/catalogue/brands/MUGS", `{"name":"Mugs","categories":[]}`)
	require.Equal(t, 201, b.Status, string(b.Raw))
	r := a.admin("POST", "/admin/v1/catalogue/rewards", `{"type":"COUPON","brandCode":"MUGS","name":"Mug","mrp":100,"sellingPrice":80}`)
	require.Equal(t, 201, r.Status, string(r.Raw))
	rewardID := r.Body["id"].(string)
	hide := a.admin("PUT", "/admin/v1/games/"+gameID+"/rewards/"+rewardID, `{"hidden":true}`)
	require.Equal(t, 200, hide.Status, string(hide.Raw))

	list, err := audit.New(postgres.NewDB(pool), postgres.NewAuditStore(postgres.NewDB(pool))).List(context.Background(),
		audit.Filter{StudioID: studioID})
	require.NoError(t, err)
	actions := []string{}
	for _, e := range list {
		actions = append(actions, e.Action)
	}
	require.Equal(t, []string{"game_reward.set", "coin.value_set", "coin.create", "game.create", "studio.create"}, actions)
	require.Equal(t, rewardID, list[0].TargetID)
	require.Equal(t, map[string]string{"hidden": "true"}, list[0].Details)
	set := list[1]
	require.Equal(t, coinID, set.TargetID)
	require.Equal(t, map[string]string{"coinsPerUnit": "250"}, set.Details)
	require.Equal(t, audit.Operator, set.Actor.Kind)
}
