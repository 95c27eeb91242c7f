package coins_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/coins"
)

// untouchable is a store the rules must refuse before ever reaching.
type untouchable struct{}

func (untouchable) InTx(context.Context, func(coins.Repo) error) error { panic("store reached") }
func (untouchable) Repo() coins.Repo                                   { panic("store reached") }

func TestMovementRules(t *testing.T) {
	t.Parallel()
	svc := coins.NewService(untouchable{})
	for _, c := range []struct {
		name string
		m    coins.Movement
	}{
		{"zero amount", coins.Movement{Amount: 0}},
		{"negative amount", coins.Movement{Amount: -5}},
		{"above the maximum", coins.Movement{Amount: coins.MaxAmount + 1}},
		{"lower-case reason", coins.Movement{Amount: 1, Reason: "bonus"}},
		{"reason with spaces", coins.Movement{Amount: 1, Reason: "LEVEL UP"}},
		{"long reference", coins.Movement{Amount: 1, ReferenceID: strings.Repeat("r", coins.MaxReferenceIDLen+1)}},
		{"long description", coins.Movement{Amount: 1, Description: strings.Repeat("d", coins.MaxDescriptionLen+1)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := svc.Distribute(context.Background(), c.m)
			require.ErrorIs(t, err, coins.ErrInvalid)
			_, _, err = svc.Deduct(context.Background(), c.m)
			require.ErrorIs(t, err, coins.ErrInvalid)
		})
	}
}
