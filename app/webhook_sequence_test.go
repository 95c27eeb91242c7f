package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestWebhookCoinEventsCarryTheirSequence: the coin events of one player's coin are numbered 1,
// 2, 3 … in the order the movements were made, credits and debits alike, without gap or
// duplicate when the movements run at once; another player's events, and another coin's, start
// at 1.
func TestWebhookCoinEventsCarryTheirSequence(t *testing.T) {
	t.Parallel()
	a := setupHooks(t)
	rc := newReceiver(t, http.StatusOK)
	g := a.hookedGame("Sequence", rc.srv.URL+"/hook")
	r := a.asGame(g.game, "PUT", "/studio-webhooks/config/"+g.configID,
		`{"subscribedEvents":["COINS_CREDITED","COINS_DEBITED"]}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	c := a.admin("POST", "/admin/v1/games/"+g.id+"/coins", `{"name":"Stars","imageUrl":"https://cdn.example.com/star.png"}`)
	require.Equal(t, 201, c.Status, string(c.Raw))
	otherCoin := c.Body["id"].(string)
	other := "Bearer " + a.federatedToken(g.game, "p-sequence-other")

	move := func(bearer, coinID, op string, amount ...int) {
		body := `{"amount":5}`
		if len(amount) > 0 {
			body = fmt.Sprintf(`{"amount":%d}`, amount[0])
		}
		r := a.asGame(g.game, "POST", "/coins/"+coinID+"/"+op, body, "Authorization", bearer)
		require.Equal(t, 201, r.Status, string(r.Raw))
	}
	move(g.bearer, g.coinID, "distribute", 100)
	move(g.bearer, g.coinID, "distribute")
	move(g.bearer, g.coinID, "deduct")
	// Concurrent movements of the same player's coin, and of the other player and coin.
	const concurrent = 24
	var wg sync.WaitGroup
	for i := range concurrent {
		wg.Go(func() {
			if i%3 == 0 {
				move(g.bearer, g.coinID, "deduct")
			} else {
				move(g.bearer, g.coinID, "distribute")
			}
		})
	}
	wg.Go(func() { move(other, g.coinID, "distribute"); move(other, g.coinID, "distribute") })
	wg.Go(func() { move(g.bearer, otherCoin, "distribute") })
	wg.Wait()

	total := 3 + concurrent + 3
	a.awaitDeliveries(g, "SUCCESS", total)
	type key struct{ user, coin string }
	seqs := map[key][]int64{}
	balanceAt := map[key]map[int64]int64{}
	for _, h := range rc.got() {
		var body struct {
			EventType  string `json:"event_type"`
			UserUUID   string `json:"user_uuid"`
			CoinID     string `json:"coin_id"`
			Sequence   int64  `json:"sequence"`
			NewBalance int64  `json:"new_balance"`
		}
		require.NoError(t, json.Unmarshal(h.body, &body))
		k := key{body.UserUUID, body.CoinID}
		seqs[k] = append(seqs[k], body.Sequence)
		if balanceAt[k] == nil {
			balanceAt[k] = map[int64]int64{}
		}
		balanceAt[k][body.Sequence] = body.NewBalance
	}
	upTo := func(n int64) []int64 {
		var out []int64
		for i := int64(1); i <= n; i++ {
			out = append(out, i)
		}
		return out
	}
	for k, s := range seqs {
		slices.Sort(s)
		seqs[k] = s
	}
	require.Equal(t, upTo(3+concurrent), seqs[key{"p-sequence", g.coinID}], "one player's coin: 1 to n, no gap, no duplicate")
	require.Equal(t, upTo(2), seqs[key{"p-sequence-other", g.coinID}], "another player starts at 1")
	require.Equal(t, upTo(1), seqs[key{"p-sequence", otherCoin}], "another coin starts at 1")
	// In sequence order the balances are the movements' in the order they were made.
	bal := balanceAt[key{"p-sequence", g.coinID}]
	require.Equal(t, []int64{100, 105, 100}, []int64{bal[1], bal[2], bal[3]})
	for s := int64(4); s <= 3+concurrent; s++ {
		d := bal[s] - bal[s-1]
		require.True(t, d == 5 || d == -5, "sequence %d follows %d: balance %d after %d", s, s-1, bal[s], bal[s-1])
	}
}
