package players

import (
	"fmt"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

type tokenClaims struct {
	GameID      string `json:"gid"`
	Environment string `json:"env"`
	jwt.RegisteredClaims
}

const tokenIssuer = "rewards"

func (s *Service) issueToken(p Player) (Token, error) {
	now := s.now()
	claims := tokenClaims{
		GameID:      p.GameID.String(),
		Environment: string(p.Environment),
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    tokenIssuer,
			Subject:   p.ID.String(),
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.TokenTTL)),
		},
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.cfg.TokenKey)
	if err != nil {
		return Token{}, fmt.Errorf("sign token: %w", err)
	}
	return Token{AccessToken: signed, ExpiresIn: s.cfg.TokenTTL}, nil
}

// parseToken verifies a token's signature, issuer and expiry. A token verified here is kept
// (Service.tokens) with its claims and expiry, and served from there while both the entry
// (authcache.TTL) and the token are fresh: a player's requests in a row verify their token once,
// not at each request (the parse, two JSON decodings and the HMAC were about a twentieth of a
// purchase's CPU). Nothing can change what a token says or whether its signature holds (the
// key is the service's configuration), so no revocation drops an entry; a token with a
// not-before time, which this service never issues, is verified every time.
func (s *Service) parseToken(raw string) (Claims, error) {
	if v, ok := s.tokens.Get(raw); ok && s.now().Before(v.expires) {
		return v.claims, nil
	}
	gen := s.tokens.Generation()
	var c tokenClaims
	_, err := jwt.ParseWithClaims(raw, &c, func(*jwt.Token) (any, error) { return s.cfg.TokenKey, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(tokenIssuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now))
	if err != nil {
		return Claims{}, ErrTokenInvalid
	}
	pid, err1 := uuid.Parse(c.Subject)
	gid, err2 := uuid.Parse(c.GameID)
	if err1 != nil || err2 != nil {
		return Claims{}, ErrTokenInvalid
	}
	claims := Claims{PlayerID: pid, GameID: gid, Environment: studio.Environment(c.Environment)}
	if c.NotBefore == nil {
		// The parse checked now < exp (jwt's validation, no leeway), as a hit does.
		s.tokens.Put(raw, verifiedToken{claims: claims, expires: c.ExpiresAt.Time}, gen)
	}
	return claims, nil
}

// verifiedToken is a token that parseToken verified: its claims and its expiry.
type verifiedToken struct {
	claims  Claims
	expires time.Time
}
