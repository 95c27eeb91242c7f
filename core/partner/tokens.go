package partner

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"

	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/studio"
)

// Token exchanges a client id (the game's API key of the host's environment) and, when the game
// has one, its client secret for a bearer token valid TokenLifetime.
func (s *Service) Token(ctx context.Context, clientID, clientSecret string, hostEnv studio.Environment) (string, time.Duration, error) {
	caller, err := s.keys.Authenticate(ctx, clientID, hostEnv)
	if err != nil {
		if errs.KindOf(err) == errs.Unauthorized {
			return "", 0, ErrBadClient.Withf("%s: %s", ErrBadClient.Message, err.Error())
		}
		return "", 0, err
	}
	repo := s.partner.Repo()
	st, found, err := repo.GetSettings(ctx, caller.GameID)
	if err != nil {
		return "", 0, err
	}
	if !found || !st.Enabled {
		return "", 0, ErrBadClient.Withf("this client is not enabled for the gift-card partner API")
	}
	hash, hasSecret, err := repo.SecretHash(ctx, caller.GameID, hostEnv)
	if err != nil {
		return "", 0, err
	}
	if !hasSecret && hostEnv == studio.Live {
		// The key ships inside game clients: on live it never authenticates a partner alone.
		return "", 0, ErrBadClient.Withf("the live environment needs the client secret (client_secret): the operator issues it when enabling partner mode")
	}
	if hasSecret && (clientSecret == "" || subtle.ConstantTimeCompare(studio.HashKey(clientSecret), hash) != 1) {
		return "", 0, ErrBadClient
	}
	token := "rpt_" + studio.RandomBase62(40)
	g := TokenGrant{Hash: studio.HashKey(token), GameID: caller.GameID, Environment: hostEnv, ExpiresAt: s.now().Add(TokenLifetime),
		KeyHash: studio.HashKey(clientID)}
	if hasSecret {
		// The secret as read: if a rotation commits meanwhile, the token is born revoked.
		g.SecretHash = hash
	}
	err = s.partner.InTx(ctx, func(r Repo) error {
		if err := r.LockTokens(ctx, caller.GameID, hostEnv); err != nil {
			return err
		}
		if err := r.TrimTokens(ctx, caller.GameID, hostEnv, MaxTokens-1); err != nil {
			return err
		}
		return r.InsertToken(ctx, g)
	})
	s.dropGame(caller.GameID) // the oldest tokens may have been trimmed
	if err != nil {
		return "", 0, err
	}
	return token, TokenLifetime, nil
}

// Authenticate resolves a bearer token on a host of hostEnv.
func (s *Service) Authenticate(ctx context.Context, token string, hostEnv studio.Environment) (Caller, error) {
	if token == "" {
		return Caller{}, ErrTokenMissing
	}
	if !strings.HasPrefix(token, "rpt_") {
		return Caller{}, ErrTokenInvalid
	}
	hash := string(studio.HashKey(token))
	rec, cached := s.tokens.Get(hash)
	if !cached {
		gen := s.tokens.Generation()
		var err error
		if rec, err = s.partner.Repo().FindToken(ctx, []byte(hash)); err != nil {
			return Caller{}, err
		}
		s.tokens.Put(hash, rec, gen)
	}
	if rec.Environment != hostEnv || !s.now().Before(rec.ExpiresAt) {
		return Caller{}, ErrTokenInvalid
	}
	if rec.Settings == nil || !rec.Settings.Enabled {
		return Caller{}, ErrDisabled
	}
	return Caller{GameID: rec.GameID, StudioID: rec.StudioID, GameName: rec.GameName, Environment: rec.Environment, Settings: *rec.Settings}, nil
}

// PurgeTokens deletes at most batch expired tokens, for the periodic purge; more reports that a
// full batch went (another call may find more).
func (s *Service) PurgeTokens(ctx context.Context, batch int) (deleted int64, more bool, err error) {
	n, err := s.partner.Repo().PurgeTokens(ctx, batch)
	return n, n == int64(batch), err
}
