package sealed_test

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/sealed"
)

func TestSealOpenAndTamper(t *testing.T) {
	t.Parallel()
	box, err := sealed.New(bytes.Repeat([]byte{7}, 32))
	require.NoError(t, err)
	a, b := box.Seal("CODE-1234"), box.Seal("CODE-1234")
	require.NotEqual(t, a, b, "a fresh nonce each time")
	require.NotContains(t, string(a), "CODE-1234")
	plain, err := box.Open(a)
	require.NoError(t, err)
	require.Equal(t, "CODE-1234", plain)
	a[len(a)-1] ^= 1
	_, err = box.Open(a)
	require.Error(t, err)
	require.Equal(t, box.Fingerprint("x"), box.Fingerprint("x"))
	require.NotEqual(t, box.Fingerprint("x"), box.Fingerprint("y"))
	_, err = sealed.New([]byte("short"))
	require.Error(t, err)
}
