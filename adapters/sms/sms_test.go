package sms_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/sms"
)

// A refusal of the gateway is reported by its status and error code; its body, which names the
// phone, is not carried into the error, which callers log.
func TestTwilioErrorDoesNotCarryThePhone(t *testing.T) {
	t.Parallel()
	const phone = "+14155550199"
	for _, tc := range []struct {
		name, body string
		want       string
	}{
		{"twilio error", `{"code":21211,"message":"The 'To' number %s is not a valid phone number.","more_info":"https://www.twilio.com/docs/errors/21211","status":400}`,
			"sms gateway answered 400 (error code 21211)"},
		{"plain text", `bad number %s`, "sms gateway answered 400"},
		{"code that is not a number", `{"code":"%s"}`, "sms gateway answered 400"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				require.NoError(t, r.ParseForm())
				require.Equal(t, phone, r.PostForm.Get("To"))
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, tc.body, r.PostForm.Get("To"))
			}))
			t.Cleanup(gateway.Close)
			err := sms.NewTwilio(gateway.URL, "AC0123456789", "auth-token", "+15005550006").SendOTP(context.Background(), phone, "123456 is your login code.")
			require.Error(t, err)
			require.Equal(t, tc.want, err.Error())

			var logs bytes.Buffer
			slog.New(slog.NewTextHandler(&logs, nil)).Warn("request failed", "err", err)
			require.NotContains(t, logs.String(), strings.TrimPrefix(phone, "+"))
			require.NotContains(t, logs.String(), "123456")
		})
	}
}

func TestTwilioSends(t *testing.T) {
	t.Parallel()
	var got http.Header
	var form map[string][]string
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.NoError(t, r.ParseForm())
		require.Equal(t, "/2010-04-01/Accounts/AC0123456789/Messages.json", r.URL.Path)
		got, form = r.Header, r.PostForm
		w.WriteHeader(http.StatusCreated)
		fmt.Fprint(w, `{"sid":"SM1","status":"queued"}`)
	}))
	t.Cleanup(gateway.Close)
	err := sms.NewTwilio(gateway.URL+"/", "AC0123456789", "auth-token", "+15005550006").SendOTP(context.Background(), "+14155550199", "hello")
	require.NoError(t, err)
	require.Equal(t, "+14155550199", form["To"][0])
	require.Equal(t, "+15005550006", form["From"][0])
	require.Equal(t, "hello", form["Body"][0])
	require.True(t, strings.HasPrefix(got.Get("Authorization"), "Basic "))
}
