package sms_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	adapter "github.com/rewardsco/rewards/adapters/sms"
	"github.com/rewardsco/rewards/fakes/sms"
)

// The service's Twilio adapter against the fake: the conformance of the two.
func TestTwilioAdapterAgainstFake(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	sms.New("AC123", "secret").Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ok := adapter.NewTwilio(srv.URL, "AC123", "secret", "+15550000000")
	require.NoError(t, ok.SendOTP(context.Background(), "+919876543210", "first"))
	require.NoError(t, ok.SendOTP(context.Background(), "+919876543210", "second"))
	require.NoError(t, ok.SendOTP(context.Background(), "+919800000000", "other"))

	bad := adapter.NewTwilio(srv.URL, "AC123", "wrong", "+15550000000")
	require.ErrorContains(t, bad.SendOTP(context.Background(), "+919876543210", "x"), "401")
	require.ErrorContains(t, ok.SendOTP(context.Background(), "12345", "x"), "400")

	res, err := http.Get(srv.URL + "/sms/messages?to=%2B919876543210")
	require.NoError(t, err)
	defer res.Body.Close()
	var got []sms.Message
	require.NoError(t, json.NewDecoder(res.Body).Decode(&got))
	require.Len(t, got, 2)
	require.Equal(t, "second", got[0].Body, "newest first")
	require.Equal(t, "+15550000000", got[0].From)
}
