package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// smsCodes reads the fake gateway's inbox of phone, newest first, the way a phone would.
func (s *stack) smsCodes(t *testing.T, phone string) []string {
	t.Helper()
	res, err := http.Get(s.fakes.BaseURL + "/sms/messages?to=" + url.QueryEscape(phone))
	require.NoError(t, err)
	defer res.Body.Close()
	var msgs []struct{ To, Body string }
	require.NoError(t, json.NewDecoder(res.Body).Decode(&msgs))
	var codes []string
	for _, m := range msgs {
		require.Equal(t, phone, m.To)
		codes = append(codes, regexp.MustCompile(`\b\d{6}\b`).FindString(m.Body))
	}
	return codes
}

func (s *stack) asPlayer(tn tenant, token, method, path string, body any, headers ...string) response {
	s.t.Helper()
	h := map[string]string{"x-api-key": tn.TestKey}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return s.call(request{method: method, path: path, body: body, headers: h})
}

func TestPlayersAndCoins(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, nil)

	t.Run("OTP login through the SMS gateway", func(t *testing.T) {
		tn := s.newTenant("OTP Studio")
		phone := "+919876500001"
		r := s.asPlayer(tn, "", "POST", "/player/request-otp", map[string]any{"phone": phone, "consent": true})
		require.Equal(t, 200, r.Status, string(r.Raw))
		codes := s.smsCodes(t, phone)
		require.Len(t, codes, 1)

		wrong := "000000"
		if codes[0] == wrong {
			wrong = "111111"
		}
		requireError(t, s.asPlayer(tn, "", "POST", "/player/login", map[string]any{"phone": phone, "otp": wrong}), 401, "OTP_INVALID")
		r = s.asPlayer(tn, "", "POST", "/player/login", map[string]any{"phone": phone, "otp": codes[0]})
		require.Equal(t, 200, r.Status, string(r.Raw))
		token := str(r.Body["access_token"])
		requireError(t, s.asPlayer(tn, "", "POST", "/player/login", map[string]any{"phone": phone, "otp": codes[0]}), 401, "OTP_USED")

		p := s.asPlayer(tn, token, "GET", "/player/profile", nil)
		require.Equal(t, 200, p.Status, string(p.Raw))
		require.Equal(t, phone, p.Body["phone"])
		requireError(t, s.asPlayer(tn, "", "POST", "/player/resend-otp", map[string]any{"phone": phone}), 429, "OTP_RESEND_TOO_SOON")
	})

	t.Run("a token of game A with the key of game B is refused", func(t *testing.T) {
		a, b := s.newTenant("Game A"), s.newTenant("Game B")
		require.Equal(t, 201, s.asPlayer(a, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "shared-id"}).Status)
		r := s.asPlayer(a, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "shared-id"})
		require.Equal(t, 200, r.Status, string(r.Raw))
		token := str(r.Body["access_token"])
		requireError(t, s.asPlayer(b, token, "GET", "/player/funds", nil), 401, "TOKEN_WRONG_GAME")
		requireError(t, s.asPlayer(b, token, "POST", "/coins/"+b.CoinID+"/distribute", map[string]any{"amount": 5}), 401, "TOKEN_WRONG_GAME")
		requireError(t, s.asPlayer(a, token, "POST", "/coins/"+b.CoinID+"/distribute", map[string]any{"amount": 5}), 404, "COIN_NOT_FOUND")
	})

	t.Run("coin flow end to end", func(t *testing.T) {
		tn := s.newTenant("Coin Studio")
		require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "hero"}).Status)
		token := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "hero"}).Body["access_token"])
		coin := "/coins/" + tn.CoinID

		r := s.asPlayer(tn, token, "POST", coin+"/distribute", map[string]any{"amount": 100, "reason": "LEVEL_UP", "referenceId": "lvl-3"}, "x-game-uuid", "hero")
		require.Equal(t, 201, r.Status, string(r.Raw))
		require.Equal(t, float64(100), r.Body["balance"])

		// 100 concurrent deducts of 1 end at exactly zero; a 101st is refused.
		var wg sync.WaitGroup
		statuses := make([]int, 100)
		for i := range statuses {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				statuses[i] = s.asPlayer(tn, token, "POST", coin+"/deduct", map[string]any{"amount": 1}).Status
			}(i)
		}
		wg.Wait()
		for i, st := range statuses {
			require.Equal(t, 201, st, "deduct %d", i)
		}
		requireError(t, s.asPlayer(tn, token, "POST", coin+"/deduct", map[string]any{"amount": 1}), 400, "INSUFFICIENT_BALANCE")

		f := s.asPlayer(tn, token, "GET", "/player/funds", nil)
		require.Equal(t, 200, f.Status)
		require.JSONEq(t, fmt.Sprintf(`[{"coinId":"%s","coinName":"Gems","coinImageUrl":"https://cdn.example.com/gem.png","balance":0,"lifetimeEarned":100,"lifetimeSpent":100}]`, tn.CoinID), string(f.Raw))

		// The journal sums to the balance.
		h := s.asPlayer(tn, token, "GET", "/player/coins-history?limit=100&page=1", nil)
		require.Equal(t, 200, h.Status, string(h.Raw))
		page := h.Body["transactions"].(map[string]any)
		require.Equal(t, float64(101), page["total"])
		sum := 0.0
		for _, it := range page["items"].([]any) {
			e := it.(map[string]any)
			if e["type"] == "CREDIT" {
				sum += e["amount"].(float64)
			} else {
				sum -= e["amount"].(float64)
			}
		}
		h2 := s.asPlayer(tn, token, "GET", "/player/coins-history?limit=100&page=2", nil)
		for _, it := range h2.Body["transactions"].(map[string]any)["items"].([]any) {
			e := it.(map[string]any)
			if e["type"] == "CREDIT" {
				sum += e["amount"].(float64)
			} else {
				sum -= e["amount"].(float64)
			}
		}
		require.Equal(t, 0.0, sum)
		require.Equal(t, float64(0), h.Body["summary"].(map[string]any)["currentBalance"])
	})

	t.Run("the same idempotency key sent 20 times at once moves coins once", func(t *testing.T) {
		tn := s.newTenant("Idem Studio")
		require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "idem"}).Status)
		token := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "idem"}).Body["access_token"])
		var wg sync.WaitGroup
		results := make([]response, 20)
		for i := range results {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				results[i] = s.asPlayer(tn, token, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 7}, "x-idempotency-key", "reward-77")
			}(i)
		}
		wg.Wait()
		txIDs := map[string]bool{}
		for _, r := range results {
			require.Contains(t, []int{201, 409}, r.Status, string(r.Raw))
			if r.Status == 201 {
				txIDs[str(r.Body["transactionId"])] = true
			} else {
				requireError(t, r, 409, "IDEMPOTENCY_IN_PROGRESS")
			}
		}
		require.Len(t, txIDs, 1)
		r := s.asPlayer(tn, token, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 7}, "x-idempotency-key", "reward-77")
		require.Equal(t, "true", r.Header.Get("x-idempotent-replay"))
		requireError(t, s.asPlayer(tn, token, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 8}, "x-idempotency-key", "reward-77"), 422, "IDEMPOTENCY_KEY_REUSED")
		f := s.asPlayer(tn, token, "GET", "/player/funds", nil)
		require.Contains(t, string(f.Raw), `"balance":7,`)
	})
}
