package app

import (
	"context"
	"fmt"
	"net/http"
	"net/url"

	"github.com/rewardsco/rewards/adapters/storepage"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/storefront"
	"github.com/rewardsco/rewards/core/studio"
)

// DemoStorePath opens the demo player's store in a local run: each visit makes a fresh one-time
// link (POST /player/store-session's) and follows it, so the banner's address keeps working
// where the link itself would last a minute.
const DemoStorePath = storepage.Path + "/demo"

// DemoShopperUUID is the demo game's player whose store the banner opens; DemoShopperCoins are
// the test-environment coins it is given when created.
const (
	DemoShopperUUID  = "demo-player"
	DemoShopperCoins = 5000
)

// seedDemoShopper returns the demo game's player (test environment), creating it with
// DemoShopperCoins on first use.
func seedDemoShopper(ctx context.Context, m Modules, demo *DemoCredentials) (players.Player, error) {
	caller := studio.Caller{GameID: demo.GameID, StudioID: demo.StudioID, GameName: demo.GameName, Environment: studio.Test}
	c, err := m.Players.CreateWithUUID(ctx, caller, DemoShopperUUID)
	if err != nil {
		return players.Player{}, fmt.Errorf("create the demo player: %w", err)
	}
	if c.Created {
		if _, _, err := m.Coins.Distribute(ctx, coins.Movement{GameID: demo.GameID, Environment: studio.Test, PlayerID: c.ID,
			UserUUID: DemoShopperUUID, CoinID: demo.CoinID, Amount: DemoShopperCoins, IdempotencyKey: "demo-player-funding"}); err != nil {
			return players.Player{}, fmt.Errorf("fund the demo player: %w", err)
		}
	}
	return c.Player, nil
}

// demoStore answers DemoStorePath: a fresh entry code for the demo player, and 303 to its link.
func demoStore(sessions *storefront.Service, p players.Player) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, err := sessions.Open(r.Context(), p)
		if err != nil {
			http.Error(w, "the demo player's store cannot be opened: "+err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		http.Redirect(w, r, storepage.Path+"/enter?code="+url.QueryEscape(e.Code), http.StatusSeeOther)
	})
}
