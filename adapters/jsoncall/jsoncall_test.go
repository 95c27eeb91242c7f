package jsoncall_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/jsoncall"
	"github.com/rewardsco/rewards/core/money"
)

func TestAmountIsReadExactlyFromItsText(t *testing.T) {
	t.Parallel()
	a, err := jsoncall.Amount(json.Number("10.15"))
	require.NoError(t, err)
	require.Equal(t, money.Amount(1015), a)
	for _, bad := range []string{"", "-1", "1e3", "+5"} {
		_, err := jsoncall.Amount(json.Number(bad))
		require.Error(t, err, bad)
	}
}

func TestAFailureSaysWhatTheProviderSaid(t *testing.T) {
	t.Parallel()
	errDown := errors.New("provider error")
	headers := make(chan http.Header, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		headers <- r.Header
		if r.URL.Path == "/coded" {
			w.WriteHeader(http.StatusConflict)
			_, _ = w.Write([]byte(`{"code":"TAKEN","message":"already there"}`))
			return
		}
		http.Error(w, "  upstream broke  ", http.StatusBadGateway)
	}))
	t.Cleanup(srv.Close)
	call := func(path string) jsoncall.Answer {
		a, err := jsoncall.Do(context.Background(), srv.Client(), http.MethodPost, srv.URL+path, http.Header{"X-Api-Key": {"k"}}, map[string]int{"n": 1}, 1<<10)
		require.NoError(t, err)
		require.False(t, a.OK())
		h := <-headers
		require.Equal(t, "application/json", h.Get("Content-Type"))
		require.Equal(t, "k", h.Get("X-Api-Key"))
		return a
	}

	f := call("/coded").Failure("acme", http.MethodPost, "/coded", errDown)
	require.Equal(t, "acme: POST /coded answered 409 TAKEN: already there", f.Error())
	require.ErrorIs(t, f, errDown)
	require.Equal(t, http.StatusConflict, jsoncall.StatusOf(fmt.Errorf("place: %w", f)))

	f = call("/plain").Failure("acme", http.MethodPost, "/plain", nil)
	require.Equal(t, "upstream broke", f.Message, "a body without a message is quoted, trimmed")
	require.Zero(t, jsoncall.StatusOf(errDown))
}

func TestACallWithoutAnAnswerIsNoAnswer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := jsoncall.Do(context.Background(), http.DefaultClient, http.MethodGet, url, nil, nil, 1<<10)
	var none *jsoncall.NoAnswer
	require.ErrorAs(t, err, &none)
	require.Equal(t, "no answer", none.Detail)
}
