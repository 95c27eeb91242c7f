package errs_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/errs"
)

var errThing = errs.New(errs.NotFound, "THING_NOT_FOUND", "thing not found")

func TestVariantsMatchTheirSentinel(t *testing.T) {
	t.Parallel()
	v := errThing.Withf("thing %d not found", 7).WithRetryAfter(time.Second)
	wrapped := fmt.Errorf("load: %w", v)
	require.ErrorIs(t, wrapped, errThing)
	require.NotErrorIs(t, wrapped, errs.ErrInvalid)
	require.Equal(t, "thing 7 not found", v.Error())
	require.Equal(t, "thing not found", errThing.Error(), "Withf must not change the sentinel")

	e, ok := errs.As(wrapped)
	require.True(t, ok)
	require.Equal(t, errs.NotFound, e.Kind)
	require.Equal(t, time.Second, e.RetryAfter)
	require.Equal(t, "THING_NOT_FOUND", errs.CodeOf(wrapped))
}

func TestPlainErrorsAreInternal(t *testing.T) {
	t.Parallel()
	err := errors.New("connection reset")
	require.Equal(t, errs.Internal, errs.KindOf(err))
	require.Equal(t, "", errs.CodeOf(err))
	require.Equal(t, errs.Invalid, errs.KindOf(errs.Invalidf("amount must be positive")))
	require.ErrorIs(t, errs.Invalidf("x"), errs.ErrInvalid)
}
