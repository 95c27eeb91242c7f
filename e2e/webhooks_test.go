package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v76/webhook"
)

// webhookEnv lets the service reach the fake receiver on the private network and retries fast.
var webhookEnv = map[string]string{
	"REWARDS_WEBHOOK_ALLOW_HTTP":    "true",
	"REWARDS_WEBHOOK_ALLOW_PRIVATE": "true",
	"REWARDS_WEBHOOK_RETRY_DELAYS":  "1s,2s,3s,4s",
}

type received struct {
	Channel        string            `json:"channel"`
	Headers        map[string]string `json:"headers"`
	Body           string            `json:"body"`
	ReceivedAt     time.Time         `json:"receivedAt"`
	AnsweredStatus int               `json:"answeredStatus"`
}

type eventBody struct {
	EventID     string `json:"event_id"`
	EventType   string `json:"event_type"`
	Timestamp   string `json:"timestamp"`
	AppID       string `json:"app_id"`
	UserUUID    string `json:"user_uuid"`
	CoinID      string `json:"coin_id"`
	Delta       int64  `json:"delta"`
	NewBalance  int64  `json:"new_balance"`
	ReferenceID string `json:"reference_id"`
	Reason      string `json:"reason"`
}

func (s *stack) received(t *testing.T, channel string) []received {
	t.Helper()
	res, err := http.Get(s.fakes.BaseURL + "/webhooks/received?channel=" + channel)
	require.NoError(t, err)
	defer res.Body.Close()
	var out []received
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return out
}

func (s *stack) behaviour(t *testing.T, b string) {
	t.Helper()
	res, err := http.Post(s.fakes.BaseURL+"/webhooks/behaviour", "application/json", strings.NewReader(b))
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
}

// webhookTenant is a tenant with a player and a webhook configuration on its own channel.
type webhookTenant struct {
	tenant
	token, channel, configID, secret string
}

func (s *stack) newWebhookTenant(t *testing.T, name string, config map[string]any) webhookTenant {
	t.Helper()
	tn := s.newTenant(name)
	require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "hook-player"}).Status)
	token := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "hook-player"}).Body["access_token"])
	channel := strings.ReplaceAll(uuid.NewString(), "-", "")
	body := map[string]any{
		"webhookUrl":       "http://fakes:9090/hooks/" + channel,
		"subscribedEvents": []string{"COINS_CREDITED", "COINS_DEBITED", "COINS_REFUNDED"},
		"environment":      "PRODUCTION",
	}
	for k, v := range config {
		body[k] = v
	}
	r := s.asPlayer(tn, "", "POST", "/studio-webhooks/configure", body)
	require.Equal(t, 201, r.Status, string(r.Raw))
	data := r.Body["data"].(map[string]any)
	require.Regexp(t, `^whsec_[A-Za-z0-9+/=]{40,}$`, data["signingSecret"])
	return webhookTenant{tenant: tn, token: token, channel: channel, configID: str(data["id"]), secret: str(data["signingSecret"])}
}

func (s *stack) distribute(t *testing.T, w webhookTenant, amount int, extra map[string]any) response {
	t.Helper()
	body := map[string]any{"amount": amount}
	for k, v := range extra {
		body[k] = v
	}
	r := s.asPlayer(w.tenant, w.token, "POST", "/coins/"+w.CoinID+"/distribute", body)
	require.Equal(t, 201, r.Status, string(r.Raw))
	return r
}

func (s *stack) deliveries(t *testing.T, w webhookTenant, query string) []map[string]any {
	t.Helper()
	r := s.asPlayer(w.tenant, "", "GET", "/studio-webhooks/deliveries?"+query, nil)
	require.Equal(t, 200, r.Status, string(r.Raw))
	var out []map[string]any
	for _, d := range r.Body["data"].(map[string]any)["data"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

// requireVerified checks a delivery the way a studio would: Stripe's verifier on the raw body.
func requireVerified(t *testing.T, r received, secret string) eventBody {
	t.Helper()
	require.NoError(t, webhook.ValidatePayload([]byte(r.Body), r.Headers["X-Service-Signature"], secret), "signature must verify")
	var e eventBody
	require.NoError(t, json.Unmarshal([]byte(r.Body), &e))
	require.Equal(t, "application/json", r.Headers["Content-Type"])
	require.Contains(t, r.Headers["User-Agent"], "1.0")
	require.Equal(t, e.EventID, r.Headers["X-Service-Event-Id"])
	require.Equal(t, e.EventType, r.Headers["X-Service-Event-Type"])
	require.NotEmpty(t, r.Headers["X-Service-Timestamp"])
	return e
}

func TestWebhooks(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, webhookEnv)

	t.Run("a distribute delivers one signed event", func(t *testing.T) {
		w := s.newWebhookTenant(t, "Hooked", nil)
		tx := s.distribute(t, w, 42, map[string]any{"reason": "LEVEL_UP", "referenceId": "match-9"})
		var got []received
		require.Eventually(t, func() bool { got = s.received(t, w.channel); return len(got) >= 1 }, 15*time.Second, 100*time.Millisecond)
		time.Sleep(500 * time.Millisecond)
		got = s.received(t, w.channel)
		require.Len(t, got, 1, "exactly one delivery")
		e := requireVerified(t, got[0], w.secret)
		require.Equal(t, "1", got[0].Headers["X-Service-Attempt"])
		require.Equal(t, "COINS_CREDITED", e.EventType)
		require.Equal(t, int64(42), e.Delta)
		require.Equal(t, int64(42), e.NewBalance)
		require.Equal(t, "LEVEL_UP", e.Reason)
		require.Equal(t, "hook-player", e.UserUUID)
		require.Equal(t, w.GameID, e.AppID)
		require.Equal(t, w.CoinID, e.CoinID)
		require.Equal(t, "match-9", e.ReferenceID)
		_, err := time.Parse(time.RFC3339Nano, e.Timestamp)
		require.NoError(t, err)

		r := s.asPlayer(w.tenant, w.token, "POST", "/coins/"+w.CoinID+"/deduct", map[string]any{"amount": 2})
		require.Equal(t, 201, r.Status)
		require.Eventually(t, func() bool { return len(s.received(t, w.channel)) == 2 }, 15*time.Second, 100*time.Millisecond)
		e2 := requireVerified(t, s.received(t, w.channel)[1], w.secret)
		require.Equal(t, "COINS_DEBITED", e2.EventType)
		require.Equal(t, int64(-2), e2.Delta)
		require.Equal(t, int64(40), e2.NewBalance)

		require.Eventually(t, func() bool {
			d := s.deliveries(t, w, "status=SUCCESS")
			return len(d) == 2
		}, 10*time.Second, 100*time.Millisecond)
		d := s.deliveries(t, w, "eventType=COINS_CREDITED")
		require.Len(t, d, 1)
		require.Equal(t, e.EventID, d[0]["eventId"])
		require.Equal(t, float64(1), d[0]["attemptNumber"])
		require.Equal(t, float64(200), d[0]["httpStatusCode"])
		require.Equal(t, str(tx.Body["transactionId"]), d[0]["event"].(map[string]any)["transactionId"])
	})

	t.Run("failing twice then succeeding takes three attempts at the configured delays", func(t *testing.T) {
		w := s.newWebhookTenant(t, "Flaky", nil)
		s.behaviour(t, fmt.Sprintf(`{"channel":%q,"failNext":2}`, w.channel))
		s.distribute(t, w, 5, nil)
		require.Eventually(t, func() bool {
			d := s.deliveries(t, w, "")
			return len(d) == 1 && d[0]["status"] == "SUCCESS"
		}, 30*time.Second, 200*time.Millisecond)
		got := s.received(t, w.channel)
		require.Len(t, got, 3)
		ids := map[string]bool{}
		for i, r := range got {
			e := requireVerified(t, r, w.secret)
			ids[e.EventID] = true
			require.Equal(t, fmt.Sprint(i+1), r.Headers["X-Service-Attempt"])
		}
		require.Len(t, ids, 1, "the same event_id on every attempt")
		gap1, gap2 := got[1].ReceivedAt.Sub(got[0].ReceivedAt), got[2].ReceivedAt.Sub(got[1].ReceivedAt)
		// Not before its delay (less the queue's polling), and not long after it: a machine busy
		// with other suites delays a job by a second or two, never moves it earlier.
		require.True(t, gap1 > 100*time.Millisecond && gap1 < 4*time.Second, "first retry after about 1s, was %s", gap1)
		require.True(t, gap2 > 1100*time.Millisecond && gap2 < 5*time.Second, "second retry after about 2s, was %s", gap2)
		d := s.deliveries(t, w, "")
		require.Equal(t, float64(3), d[0]["attemptNumber"])
	})

	t.Run("failing always gives five attempts then FAILED, and the stats say so", func(t *testing.T) {
		w := s.newWebhookTenant(t, "Broken", nil)
		s.distribute(t, w, 1, nil) // delivered
		require.Eventually(t, func() bool { return len(s.received(t, w.channel)) == 1 }, 15*time.Second, 100*time.Millisecond)
		s.behaviour(t, fmt.Sprintf(`{"channel":%q,"status":503}`, w.channel))
		s.distribute(t, w, 1, nil) // never delivered
		require.Eventually(t, func() bool {
			return len(s.deliveries(t, w, "status=FAILED")) == 1
		}, 40*time.Second, 250*time.Millisecond)
		failed := s.deliveries(t, w, "status=FAILED")[0]
		require.Equal(t, float64(5), failed["attemptNumber"])
		require.Equal(t, float64(503), failed["httpStatusCode"])
		require.Nil(t, failed["nextRetryAt"])
		require.Len(t, s.received(t, w.channel), 1+5)
		st := s.asPlayer(w.tenant, "", "GET", "/studio-webhooks/stats", nil)
		require.Equal(t, 200, st.Status)
		require.Equal(t, map[string]any{"totalEvents": float64(2), "deliveredEvents": float64(1), "failedEvents": float64(1), "successRate": "50.00"},
			st.Body["data"])
		time.Sleep(1500 * time.Millisecond)
		require.Len(t, s.received(t, w.channel), 6, "no sixth attempt")
	})

	t.Run("excluded reasons and inactive configurations send nothing; the test endpoint records nothing", func(t *testing.T) {
		w := s.newWebhookTenant(t, "Picky", map[string]any{"excludedReasons": []string{"ADS_BONUS"}, "subscribedEvents": []string{"COINS_CREDITED"}})
		s.distribute(t, w, 3, map[string]any{"reason": "ADS_BONUS"})
		r := s.asPlayer(w.tenant, w.token, "POST", "/coins/"+w.CoinID+"/deduct", map[string]any{"amount": 1})
		require.Equal(t, 201, r.Status, "not subscribed to debits")
		up := s.asPlayer(w.tenant, "", "PUT", "/studio-webhooks/config/"+w.configID, map[string]any{"isActive": false})
		require.Equal(t, 200, up.Status, string(up.Raw))
		require.Equal(t, false, up.Body["data"].(map[string]any)["isActive"])
		require.NotEqual(t, w.secret, up.Body["data"].(map[string]any)["signingSecret"], "secret masked after creation")
		s.distribute(t, w, 3, nil)
		time.Sleep(2 * time.Second)
		require.Empty(t, s.received(t, w.channel))
		require.Empty(t, s.deliveries(t, w, ""))

		test := s.asPlayer(w.tenant, "", "POST", "/studio-webhooks/test?configId="+w.configID, map[string]any{"eventType": "COINS_REFUNDED"})
		require.Equal(t, 200, test.Status, string(test.Raw))
		out := test.Body["data"].(map[string]any)
		require.Equal(t, true, out["delivered"])
		require.Equal(t, float64(200), out["httpStatusCode"])
		got := s.received(t, w.channel)
		require.Len(t, got, 1)
		e := requireVerified(t, got[0], w.secret)
		require.Equal(t, "COINS_REFUNDED", e.EventType)
		require.Empty(t, s.deliveries(t, w, ""), "the test event records no delivery")
		st := s.asPlayer(w.tenant, "", "GET", "/studio-webhooks/stats", nil)
		require.Equal(t, float64(0), st.Body["data"].(map[string]any)["totalEvents"])
	})

	t.Run("studio isolation", func(t *testing.T) {
		a := s.newWebhookTenant(t, "Iso A", nil)
		b := s.newWebhookTenant(t, "Iso B", nil)
		requireError(t, s.asPlayer(b.tenant, "", "GET", "/studio-webhooks/config/"+a.configID, nil), 404, "WEBHOOK_CONFIG_NOT_FOUND")
		requireError(t, s.asPlayer(b.tenant, "", "GET", "/studio-webhooks/config?studioId="+a.StudioID, nil), 403, "STUDIO_MISMATCH")
		requireError(t, s.asPlayer(b.tenant, "", "DELETE", "/studio-webhooks/config/"+a.configID, nil), 404, "WEBHOOK_CONFIG_NOT_FOUND")
		list := s.asPlayer(a.tenant, "", "GET", "/studio-webhooks/config?studioId="+a.StudioID, nil)
		require.Equal(t, 200, list.Status)
		require.Len(t, list.Body["data"], 1)
		// The live environment sees none of the test environment's configurations.
		live := s.call(request{method: "GET", path: "/studio-webhooks/config", host: "live.localhost", headers: map[string]string{"x-api-key": a.LiveKey}})
		require.Equal(t, 200, live.Status, string(live.Raw))
		require.Empty(t, live.Body["data"])
		requireError(t, s.asPlayer(a.tenant, "", "POST", "/studio-webhooks/configure", map[string]any{
			"webhookUrl": "ftp://x.example", "subscribedEvents": []string{"COINS_CREDITED"}, "environment": "PRODUCTION"}), 400, "VALIDATION_FAILED")
		requireError(t, s.asPlayer(a.tenant, "", "POST", "/studio-webhooks/configure", map[string]any{
			"webhookUrl": "https://x.example", "subscribedEvents": []string{"COINS_MINTED"}, "environment": "PRODUCTION"}), 400, "VALIDATION_FAILED")
	})
}

func TestWebhookSurvivesAKilledService(t *testing.T) {
	t.Parallel() // each test runs its own stack
	env := map[string]string{}
	for k, v := range webhookEnv {
		env[k] = v
	}
	env["REWARDS_WEBHOOK_RETRY_DELAYS"] = "4s,4s,4s,4s"
	s := startStack(t, env)
	w := s.newWebhookTenant(t, "Crashy", nil)
	s.behaviour(t, fmt.Sprintf(`{"channel":%q,"failNext":1}`, w.channel))
	s.distribute(t, w, 9, nil)
	// The first attempt fails. Once its outcome is recorded and the delivery waits in the outbox
	// for its retry, SIGKILL the service: only the database knows the event is still owed.
	db := s.pg.DB(s.ctx)
	require.Eventually(t, func() bool {
		var waiting int
		err := db.QueryRowContext(s.ctx, `SELECT count(*) FROM webhook_deliveries d
			WHERE d.status = 'RETRYING' AND d.attempt_number = 1 AND d.due_at > now()`).Scan(&waiting)
		return err == nil && waiting == 1
	}, 15*time.Second, 50*time.Millisecond)
	s.svc.Kill(s.ctx)
	time.Sleep(5 * time.Second)
	require.Len(t, s.received(t, w.channel), 1, "nothing is sent while the service is down")
	s.svc.Start(s.ctx)
	require.Eventually(t, func() bool {
		d := s.deliveries(t, w, "")
		return len(d) == 1 && d[0]["status"] == "SUCCESS"
	}, 30*time.Second, 200*time.Millisecond)
	got := s.received(t, w.channel)
	require.Len(t, got, 2)
	requireVerified(t, got[1], w.secret)
	require.Equal(t, "2", got[1].Headers["X-Service-Attempt"])
}

func TestWebhooksWithTwoInstances(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, webhookEnv)
	second := s.addInstance()
	w := s.newWebhookTenant(t, "Twins", nil)
	const n = 60
	client := s.httpClient() // checks the answers of both instances, which serve the same documents
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			base := s.svc.BaseURL
			if i%2 == 1 {
				base = second.BaseURL
			}
			// As a studio's server does: an idempotency key, and the same request again after a
			// 503 (a statement that outwaited its bound on the one contended balance row, on a
			// busy machine) or a 409 (the first try still running); the key makes it one credit.
			for try := 1; ; try++ {
				req, _ := http.NewRequest("POST", base+"/coins/"+w.CoinID+"/distribute", strings.NewReader(`{"amount":1}`))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("x-api-key", w.TestKey)
				req.Header.Set("Authorization", "Bearer "+w.token)
				req.Header.Set("x-idempotency-key", fmt.Sprintf("twins-%d", i))
				res, err := client.Do(req)
				if err != nil {
					return
				}
				res.Body.Close()
				if (res.StatusCode == 503 || res.StatusCode == 409) && try < 5 {
					time.Sleep(time.Duration(try) * 200 * time.Millisecond)
					continue
				}
				if res.StatusCode != 201 && res.StatusCode != 200 {
					t.Errorf("distribute %d: status %d", i, res.StatusCode)
				}
				return
			}
		}(i)
	}
	wg.Wait()
	require.Eventually(t, func() bool { return len(s.received(t, w.channel)) >= n }, 60*time.Second, 200*time.Millisecond)
	time.Sleep(time.Second)
	got := s.received(t, w.channel)
	seen := map[string]int{}
	balances := map[int64]bool{}
	for _, r := range got {
		e := requireVerified(t, r, w.secret)
		seen[e.EventID]++
		balances[e.NewBalance] = true
	}
	require.Len(t, seen, n, "every event delivered")
	for id, c := range seen {
		require.Equal(t, 1, c, "event %s delivered %d times", id, c)
	}
	require.Len(t, balances, n, "each event carries its own new balance")
}
