package main

// The partner scenario: POST /partner/v1/gift-cards/orders of an ordinary gift card by a WALLET
// partner, each order its own clientOrderId, on a game of its own funded through the operator
// API. Each order debits the wallet in the order's transaction (one wallet row every client
// contends on, as a partner's orders do), then the service orders the card from the fake voucher
// provider on loopback and waits for it, as the store's gift card purchase does. It is reported
// with the purchases, beside the store's coupon purchase and pgbench's tpcb-like of the same run.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
)

const partnerScenario = "partner-wallet"

// partnerFixture is the partner game, its token and the card it buys.
type partnerFixture struct {
	gameID, token string
	body          func(id string) []byte
	brand         string
	face          float64
	seq           atomic.Int64
}

var partnerFx *partnerFixture

func (env *environment) partnerFixture(ctx context.Context) (*partnerFixture, error) {
	if partnerFx != nil {
		return partnerFx, nil
	}
	// The purchases' fixture syncs the provider's catalogue (and keeps the store scenarios' game
	// clear of it).
	if _, err := env.orderFixture(ctx); err != nil {
		return nil, err
	}
	fmt.Fprintln(os.Stderr, "setting up the partner (WALLET game, funded wallet, token)…")
	key, coinID, err := env.newGame(ctx, "Load Benchmark Partner")
	if err != nil {
		return nil, err
	}
	fx := &partnerFixture{brand: giftBrand}
	conn, err := pgx.Connect(ctx, env.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := conn.QueryRow(ctx, `SELECT game_id::text FROM coins WHERE id = $1`, coinID).Scan(&fx.gameID); err != nil {
		return nil, fmt.Errorf("the partner's game: %w", err)
	}
	op := map[string]string{"Authorization": "Bearer " + env.adminToken}
	if err := env.send(ctx, http.MethodPut, "/admin/v1/games/"+fx.gameID+"/partner", op,
		map[string]any{"enabled": true, "settlement": "WALLET", "discountPct": 2.5}, nil, http.StatusOK); err != nil {
		return nil, err
	}
	// A credit is at most 1,000,000,000: plenty for a run.
	if err := env.send(ctx, http.MethodPost, "/admin/v1/games/"+fx.gameID+"/partner/test/wallet/credits", op,
		map[string]any{"amount": 1e9, "reference": "load-benchmark"}, nil, http.StatusCreated); err != nil {
		return nil, err
	}
	var tok struct {
		Data struct {
			AccessToken string `json:"access_token"`
		}
	}
	if err := env.send(ctx, http.MethodPost, "/partner/v1/token", nil, map[string]any{"client_id": key}, &tok, http.StatusOK); err != nil {
		return nil, err
	}
	fx.token = tok.Data.AccessToken
	var brand struct {
		Data struct {
			Denominations []float64
			MinValue      *float64 `json:"minValue"`
		}
	}
	if err := env.send(ctx, http.MethodGet, "/partner/v1/gift-cards/brands/"+fx.brand, map[string]string{"Authorization": "Bearer " + fx.token},
		nil, &brand, http.StatusOK); err != nil {
		return nil, err
	}
	switch {
	case len(brand.Data.Denominations) > 0:
		fx.face = brand.Data.Denominations[0]
	case brand.Data.MinValue != nil:
		fx.face = *brand.Data.MinValue
	default:
		return nil, fmt.Errorf("brand %s has no value to buy", fx.brand)
	}
	prefix := "lb-" + strconv.FormatInt(int64(os.Getpid()), 36) + "-"
	fx.body = func(id string) []byte {
		raw, _ := json.Marshal(map[string]any{"clientOrderId": prefix + id, "brandCode": fx.brand, "denomination": fx.face, "quantity": 1,
			"customer": map[string]any{"ref": "load"}})
		return raw
	}
	partnerFx = fx
	return fx, nil
}

// partnerWallet measures WALLET orders: an answer 201 with a SUCCESS order is a success.
func partnerWallet(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.partnerFixture(ctx)
	if err != nil {
		return result{}, err
	}
	failures := newFailures(clients)
	path := env.baseURL + "/partner/v1/gift-cards/orders"
	do := func(ctx context.Context, client int) (int, []byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(fx.body(strconv.FormatInt(fx.seq.Add(1), 10))))
		if err != nil {
			return 0, nil, err
		}
		req.Header.Set("Authorization", "Bearer "+fx.token)
		return placeOrder(env, req, failures[client], func(body []byte) (string, error) {
			var o struct{ Data struct{ Status string } }
			if err := json.Unmarshal(body, &o); err != nil {
				return "", fmt.Errorf("POST /partner/v1/gift-cards/orders: undecodable answer (%v)", err)
			}
			return o.Data.Status, nil
		})
	}
	st := &orderStats{baseline: tpcbBaseline}
	if err := env.warmUp(ctx, clients, do); err != nil {
		return result{}, err
	}
	if env.opts.warmup > 0 {
		st.warmupFailed = merge(failures)
		for i := range failures {
			failures[i] = map[string]int{}
		}
	}
	r := loop(ctx, clients, env.opts.duration, do)
	if err := ctx.Err(); err != nil {
		return result{}, err
	}
	st.failures = merge(failures)
	// Each order queued a fulfilment job, due REWARDS_VOUCHER_WAIT after it and deleted when the
	// order is final within the wait; those that remain are part of this run.
	st.drain, st.undrained, err = (&orderFixture{gameID: fx.gameID}).drainFulfilment(ctx, env)
	r.order = st
	return r, err
}
