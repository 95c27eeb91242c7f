package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/webhookhttp"
	core "github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/fakes/webhooks"
)

// The service's webhook transport against the fake receiver.
func TestTransportAgainstFakeReceiver(t *testing.T) {
	t.Parallel()
	mux := http.NewServeMux()
	webhooks.New().Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	tr := webhookhttp.New(webhookhttp.Options{AllowHTTP: true, AllowPrivate: true})
	send := func() int {
		status, err := tr.Send(context.Background(), core.Request{URL: srv.URL + "/hooks/a", Body: []byte(`{"x":1}`),
			Headers: map[string]string{"X-Service-Event-ID": "e1"}})
		require.NoError(t, err)
		return status
	}
	res, err := http.Post(srv.URL+"/webhooks/behaviour", "application/json", strings.NewReader(`{"channel":"a","failNext":2,"failStatus":503}`))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 503, send())
	require.Equal(t, 503, send())
	require.Equal(t, 200, send())

	res, err = http.Post(srv.URL+"/webhooks/behaviour", "application/json", strings.NewReader(`{"channel":"a","stallMs":300}`))
	require.NoError(t, err)
	res.Body.Close()
	start := time.Now()
	require.Equal(t, 200, send())
	require.GreaterOrEqual(t, time.Since(start), 300*time.Millisecond)

	res, err = http.Get(srv.URL + "/webhooks/received?channel=a")
	require.NoError(t, err)
	defer res.Body.Close()
	var got []webhooks.Received
	require.NoError(t, json.NewDecoder(res.Body).Decode(&got))
	require.Len(t, got, 4)
	require.Equal(t, "e1", got[0].Headers["X-Service-Event-Id"])
	require.Equal(t, `{"x":1}`, got[3].Body)
	require.Equal(t, []int{503, 503, 200, 200}, []int{got[0].AnsweredStatus, got[1].AnsweredStatus, got[2].AnsweredStatus, got[3].AnsweredStatus})
}
