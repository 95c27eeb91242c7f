// Package journey drives the service through a client that ogen generated from a served
// OpenAPI document, as a studio and a partner would. It is not built with the module:
// TestGeneratedClients (app/clients_test.go) copies it into its temporary module once per
// generated ogen client, with the import of "rewardsclients/ogenapi" pointed at that client,
// and runs it against the service it started, described by the file that REWARDS_JOURNEY
// names.
//
// Every answer is decoded by the generated code, which refuses unknown fields, missing
// required fields, nulls where the document allows none and undeclared statuses: a document
// that describes an answer wrongly fails here. A rename of an operation or a schema changes
// the generated names, and so the code of every studio that generated a client: this file
// breaks too, and must follow.
package journey

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-faster/errors"
	"github.com/ogen-go/ogen/ogenerrors"
	"github.com/stretchr/testify/require"

	api "rewardsclients/ogenapi"
)

// world is what the test made for the journeys (TestGeneratedClients writes it).
type world struct {
	URL      string `json:"url"`
	APIKey   string `json:"apiKey"`   // a game's test key, with a coin
	CoinID   string `json:"coinId"`   // the game's coin
	CouponID string `json:"couponId"` // a coupon with free codes, in the catalogue the game sees
	Partner  string `json:"partner"`  // another game's test key, enabled for the partner API, wallet funded
	Brand    string `json:"brand"`    // a gift-card brand of the partner catalogue
}

func load(t *testing.T) (world, string) {
	t.Helper()
	raw, err := os.ReadFile(os.Getenv("REWARDS_JOURNEY"))
	require.NoError(t, err, "REWARDS_JOURNEY names the world file")
	var w world
	require.NoError(t, json.Unmarshal(raw, &w))
	// Each generated client runs the journey against the same service: the package's name
	// keeps their players and orders apart.
	dir, err := os.Getwd()
	require.NoError(t, err)
	return w, filepath.Base(dir)
}

// credentials is the client's SecuritySource: a scheme without a value is skipped, so that
// an operation takes the first of its requirements that is met.
type credentials struct {
	apiKey, player, partner string
}

func skipEmpty(v string) error {
	if v == "" {
		return ogenerrors.ErrSkipClientSecurity
	}
	return nil
}

func (c *credentials) ApiKey(context.Context, api.OperationName) (api.ApiKey, error) {
	return api.ApiKey{APIKey: c.apiKey}, skipEmpty(c.apiKey)
}

func (c *credentials) PlayerBearer(context.Context, api.OperationName) (api.PlayerBearer, error) {
	return api.PlayerBearer{Token: c.player}, skipEmpty(c.player)
}

func (c *credentials) PartnerBearer(context.Context, api.OperationName) (api.PartnerBearer, error) {
	return api.PartnerBearer{Token: c.partner}, skipEmpty(c.partner)
}

func (c *credentials) ServerSecret(context.Context, api.OperationName) (api.ServerSecret, error) {
	return api.ServerSecret{}, ogenerrors.ErrSkipClientSecurity
}

// answer checks that a call succeeded with the answer of type T (a generated type per
// declared status) and returns it; an error answer is shown whole.
func answer[T any](t *testing.T, res any, err error) T {
	t.Helper()
	if err != nil {
		var decode *ogenerrors.DecodeBodyError
		if errors.As(err, &decode) {
			t.Fatalf("the answer does not match the document: %v\nbody: %s", err, decode.Body)
		}
		t.Fatalf("call failed: %v", err)
	}
	v, ok := res.(T)
	if !ok {
		t.Fatalf("answer %T %+v, want %T", res, res, *new(T))
	}
	return v
}

func TestStudioJourney(t *testing.T) {
	w, run := load(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	creds := &credentials{apiKey: w.APIKey}
	c, err := api.NewClient(w.URL, creds)
	require.NoError(t, err)
	uuid := "journey-" + run

	created, err := c.PlayerCreateWithUUID(ctx, &api.UuidRequest{UUID: uuid})
	player := answer[*api.CreatedPlayerBodyHeaders](t, created, err)
	require.Equal(t, uuid, player.Response.UUID)
	require.NotEmpty(t, player.XRequestID, "every answer has its request id")

	login, err := c.PlayerLoginFederated(ctx, &api.UuidRequest{UUID: uuid})
	token := answer[*api.TokenBodyHeaders](t, login, err)
	require.Equal(t, "Bearer", token.Response.TokenType)
	creds.player = token.Response.AccessToken

	distribute := func() *api.CoinMovementBodyHeaders {
		t.Helper()
		res, err := c.CoinsDistribute(ctx, &api.CoinDistributionBody{Amount: 5000, Reason: api.NewOptString("LEVEL_COMPLETE")},
			api.CoinsDistributeParams{CoinId: w.CoinID, XIdempotencyKey: api.NewOptString(run + "-credit")})
		return answer[*api.CoinMovementBodyHeaders](t, res, err)
	}
	movement := distribute()
	require.Equal(t, int64(5000), movement.Response.Balance)
	replayed := distribute()
	require.Equal(t, "true", replayed.XIdempotentReplay.Or(""), "a repeated key replays")
	require.Equal(t, movement.Response.TransactionId, replayed.Response.TransactionId)

	list, err := c.RewardsList(ctx, api.RewardsListParams{CoinId: w.CoinID, XLanguage: "en"})
	page := answer[*api.RewardListItemPageHeaders](t, list, err)
	var listed []string
	for _, it := range page.Response.Items {
		switch string(it.Type) {
		case "RewardShapeA":
			listed = append(listed, it.RewardShapeA.ID)
		case "RewardShapeB":
			listed = append(listed, it.RewardShapeB.ID)
		}
	}
	require.Contains(t, listed, w.CouponID, "the coupon is in the store")

	bought, err := c.RewardsPurchase(ctx, &api.PurchaseBody{RewardId: w.CouponID, CoinId: w.CoinID},
		api.RewardsPurchaseParams{XIdempotencyKey: api.NewOptString(run + "-coupon")})
	purchase := answer[*api.RewardsPurchaseOKHeaders](t, bought, err)
	require.Equal(t, "SUCCESS", string(purchase.Response.Status))
	require.Len(t, purchase.Response.Codes, 1)
	spent := purchase.Response.CoinsSpent
	require.Positive(t, spent)

	read, err := c.PlayerOrder(ctx, api.PlayerOrderParams{OrderId: purchase.Response.OrderId, XLanguage: "en"})
	order := answer[*api.PlayerOrderBodyHeaders](t, read, err)
	require.Equal(t, "SUCCESS", string(order.Response.Status))
	require.Equal(t, purchase.Response.Codes, order.Response.Codes)

	funds, err := c.PlayerFunds(ctx, api.PlayerFundsParams{})
	wallets := answer[*api.PlayerFundsOKHeaders](t, funds, err).Response
	require.Len(t, wallets, 1)
	require.Equal(t, w.CoinID, wallets[0].CoinId)
	require.Equal(t, 5000-spent, wallets[0].Balance)

	// The game has no placement: the home screen shows nothing, a 200 with nulls.
	serve, err := c.ServeTouchpoint(ctx, api.ServeTouchpointParams{Screen: "home"})
	served := answer[*api.ServedEnvelopeHeaders](t, serve, err).Response.Data
	require.True(t, served.Asset.Null && served.Item.Null && served.PlacementId.Null, "nothing to show: %+v", served)

	// An error is an answer too: its code is one of the operation's.
	missing, err := c.PlayerOrder(ctx, api.PlayerOrderParams{OrderId: "no-such-order", XLanguage: "en"})
	notFound := answer[*api.PlayerOrderNotFound](t, missing, err)
	code, _ := notFound.Response.Code.Get()
	require.Equal(t, "ORDER_NOT_FOUND", string(code))
	require.Equal(t, notFound.XRequestID, notFound.Response.RequestId)
}

func TestPartnerJourney(t *testing.T) {
	w, run := load(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	creds := &credentials{}
	c, err := api.NewClient(w.URL, creds)
	require.NoError(t, err)

	exchanged, err := c.PartnerToken(ctx, &api.PartnerTokenApplicationJSON{ClientID: w.Partner})
	token := answer[*api.PartnerTokenEnvelopeHeaders](t, exchanged, err).Response.Data
	require.Equal(t, "Bearer", token.TokenType)
	creds.partner = token.AccessToken

	listed, err := c.PartnerBrands(ctx, api.PartnerBrandsParams{Search: api.NewOptString(w.Brand)})
	brands := answer[*api.PartnerBrandPageEnvelopeHeaders](t, listed, err).Response.Data
	var brand *api.PartnerBrandBody
	for i := range brands.Items {
		if brands.Items[i].BrandCode == w.Brand {
			brand = &brands.Items[i]
		}
	}
	require.NotNil(t, brand, "brand %s listed", w.Brand)
	denomination, ok := brand.MinValue.Get()
	if ds, set := brand.Denominations.Get(); set && len(ds) > 0 {
		denomination, ok = ds[0], true
	}
	require.True(t, ok, "the brand has a value to order")

	request := &api.PartnerOrderRequest{ClientOrderId: run + "-1", BrandCode: w.Brand, Denomination: denomination, Quantity: 1,
		Customer: api.PartnerCustomer{Ref: "user-" + run, Email: api.NewOptString("asha@example.com")}}
	placed, err := c.PartnerPlaceOrder(ctx, request)
	first := answer[*api.PartnerPlaceOrderCreated](t, placed, err).Response.Data
	require.Equal(t, "SUCCESS", string(first.Status))
	require.Equal(t, "WALLET", string(first.Settlement))
	require.Len(t, first.Codes, 1)

	// The same clientOrderId again is a replay: the same order, answered 200.
	replay, err := c.PartnerPlaceOrder(ctx, request)
	again := answer[*api.PartnerPlaceOrderOK](t, replay, err)
	require.Equal(t, "true", again.XIdempotentReplay.Or(""))
	require.Equal(t, first.OrderId, again.Response.Data.OrderId)

	read, err := c.PartnerOrder(ctx, api.PartnerOrderParams{OrderId: first.OrderId})
	order := answer[*api.PartnerOrderOKHeaders](t, read, err).Response.Data
	require.Equal(t, first.Codes, order.Codes)
	require.Equal(t, fmt.Sprint(first.AmountDebited), fmt.Sprint(order.AmountDebited))

	wallet, err := c.PartnerWallet(ctx)
	balance := answer[*api.PartnerWalletEnvelopeHeaders](t, wallet, err).Response.Data.Balance
	require.Less(t, balance, float64(10000), "the order was paid from the wallet")
}
