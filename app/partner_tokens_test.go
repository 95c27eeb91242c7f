package app_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/studio"
)

// Enabling partner mode issues the live client secret, and on live the key alone (it ships in
// game clients) never authenticates a partner.
func TestEnablingPartnerModeIssuesTheLiveSecret(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0) // enabled through PUT .../partner
	r := p.admin("GET", "/admin/v1/games/"+g.id.String()+"/partner", nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Nil(t, r.Body["liveClientSecret"], "the secret is shown once, by the PUT that issued it")

	// The PUT that enabled it returned the secret: a fresh game shows it.
	ctx := context.Background()
	s, err := p.m.Studios.CreateStudio(ctx, "Secretive")
	require.NoError(t, err)
	fresh, err := p.m.Studios.CreateGame(ctx, studio.Game{StudioID: s.ID, Name: "Fresh"})
	require.NoError(t, err)
	put := p.admin("PUT", "/admin/v1/games/"+fresh.ID.String()+"/partner", map[string]any{"enabled": true, "settlement": "WALLET"})
	require.Equal(t, 200, put.Status, string(put.Raw))
	secret, _ := put.Body["liveClientSecret"].(string)
	require.True(t, strings.HasPrefix(secret, "rcs_") && len(secret) == 44, string(put.Raw))
	again := p.admin("PUT", "/admin/v1/games/"+fresh.ID.String()+"/partner", map[string]any{"enabled": true, "settlement": "CASH"})
	require.Equal(t, 200, again.Status, string(again.Raw))
	require.Nil(t, again.Body["liveClientSecret"], "a game that has a live secret keeps it")

	// Live: the key alone is refused; with the secret it works. Test may stay secret-less.
	liveToken := func(body map[string]any) response {
		return p.call("POST", "/partner/v1/token", "live.localhost", nil, body)
	}
	requireError(t, liveToken(map[string]any{"client_id": fresh.LiveKey}), 401, "INVALID_CLIENT")
	ok := liveToken(map[string]any{"client_id": fresh.LiveKey, "client_secret": secret})
	require.Equal(t, 200, ok.Status, string(ok.Raw))
	require.Equal(t, 200, p.call("GET", "/partner/v1/gift-cards/config", "live.localhost",
		map[string]string{"Authorization": "Bearer " + data(ok)["access_token"].(string)}, nil).Status)
	require.NotEmpty(t, p.token(fresh.TestKey, ""))
}

// A partner token is valid only while the API key and the client secret it was exchanged with
// are current, and a game's environment holds at most 20.
func TestPartnerTokensFollowTheirKeyAndSecret(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	valid := func(tok string) bool {
		return p.as(tok, "GET", "/partner/v1/gift-cards/config", nil).Status == 200
	}

	// A key rotation revokes the tokens exchanged with the old key.
	tok := p.token(g.key, "")
	require.True(t, valid(tok))
	rot := p.admin("POST", "/admin/v1/games/"+g.id.String()+"/api-keys/test/rotate", nil)
	require.Equal(t, 201, rot.Status, string(rot.Raw))
	requireError(t, p.as(tok, "GET", "/partner/v1/gift-cards/config", nil), 401, "PARTNER_TOKEN_INVALID")
	newKey := rot.Body["apiKey"].(string)
	require.True(t, valid(p.token(newKey, "")))

	// At most 20: the 21st exchange revokes the oldest.
	tokens := make([]string, 21)
	for i := range tokens {
		tokens[i] = p.token(newKey, "")
	}
	require.False(t, valid(tokens[0]), "the oldest token outlived the cap")
	for _, tk := range tokens[1:] {
		require.True(t, valid(tk))
	}
}

// 50 token exchanges racing a secret rotation leave no valid token of the old secret.
func TestPartnerTokenExchangeRacingARotation(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	ctx := context.Background()
	for round := range 4 {
		old, err := p.m.Partner.IssueSecret(ctx, g.id, studio.Test)
		require.NoError(t, err)
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			issued []string
			start  = make(chan struct{})
		)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tok, _, err := p.m.Partner.Token(ctx, g.key, old, studio.Test)
				if err == nil {
					mu.Lock()
					issued = append(issued, tok)
					mu.Unlock()
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(time.Duration(round) * time.Millisecond)
			_, err := p.m.Partner.IssueSecret(ctx, g.id, studio.Test)
			require.NoError(t, err)
		}()
		close(start)
		wg.Wait()
		for _, tok := range issued {
			_, err := p.m.Partner.Authenticate(ctx, tok, studio.Test)
			require.ErrorIs(t, err, partner.ErrTokenInvalid, "round %d: a token of the rotated-away secret still works (%d issued)", round, len(issued))
		}
	}
}

// 50 token exchanges racing an API key rotation leave no valid token of the old key.
func TestPartnerTokenExchangeRacingKeyRotation(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	ctx := context.Background()
	key := g.key
	for round := range 3 {
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			tokens []string
			start  = make(chan struct{})
			newKey string
			rerr   error
		)
		for range 50 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				tok, _, err := p.m.Partner.Token(ctx, key, "", studio.Test)
				if err == nil {
					mu.Lock()
					tokens = append(tokens, tok)
					mu.Unlock()
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			time.Sleep(time.Duration(round) * 2 * time.Millisecond)
			newKey, rerr = p.m.Studios.RotateKey(ctx, g.id, studio.Test)
		}()
		close(start)
		wg.Wait()
		require.NoError(t, rerr)
		for _, tok := range tokens {
			_, err := p.m.Partner.Authenticate(ctx, tok, studio.Test)
			require.Error(t, err, "round %d: a token of the rotated-away key works after the rotation", round)
		}
		key = newKey
	}
}
