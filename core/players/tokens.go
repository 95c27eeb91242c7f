package players

import (
	"fmt"

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

// parseToken verifies a token's signature, issuer and expiry.
func (s *Service) parseToken(raw string) (Claims, error) {
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
	return Claims{PlayerID: pid, GameID: gid, Environment: studio.Environment(c.Environment)}, nil
}
