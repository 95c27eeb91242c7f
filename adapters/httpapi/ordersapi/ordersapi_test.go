package ordersapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

const operatorToken = "ordersapi-test-operator-token"

// untouchedServer serves the orders operations over a service with no storage at all: every
// request below must be answered while decoding, and would panic if it reached the core. Any
// API key and player token are accepted. It is built once: httpapi.New installs Huma's error
// model, a package-wide setting.
var untouchedServer = sync.OnceValue(func() *httpapi.Server {
	caller := studio.Caller{GameID: uuid.New(), Environment: studio.Test}
	s := httpapi.New(httpapi.Config{
		AdminToken: operatorToken,
		Hosts:      httpapi.Hosts{Dev: []string{"example.com"}},
		Log:        slog.New(slog.DiscardHandler),
		AuthenticateKey: func(context.Context, string, studio.Environment) (studio.Caller, error) {
			return caller, nil
		},
		AuthenticatePlayer: func(context.Context, studio.Caller, string, string) (players.Player, error) {
			return players.Player{ID: uuid.New()}, nil
		},
	})
	Register(s, orders.NewService(nil, nil, nil, nil, nil, orders.Config{}))
	return s
})

type answer struct {
	status int
	header http.Header
	body   []byte
}

func (a answer) json(t *testing.T) map[string]any {
	t.Helper()
	var out map[string]any
	require.NoError(t, json.Unmarshal(a.body, &out), string(a.body))
	return out
}

func send(t *testing.T, method, path, body string, headers map[string]string) answer {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if strings.HasPrefix(path, "/admin/") {
		req.Header.Set("Authorization", "Bearer "+operatorToken)
	} else {
		req.Header.Set("x-api-key", "any")
		req.Header.Set("Authorization", "Bearer any")
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	untouchedServer().Handler().ServeHTTP(rec, req)
	return answer{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

func tagOf(t *testing.T, typ reflect.Type, field, tag string) string {
	t.Helper()
	f, ok := typ.FieldByName(field)
	require.True(t, ok, field)
	return f.Tag.Get(tag)
}

func enumOf(t *testing.T, typ reflect.Type, field string) []string {
	t.Helper()
	list := strings.Split(tagOf(t, typ, field, "enum"), ",")
	slices.Sort(list)
	return list
}

func sortedStrings[S ~string](list ...S) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = string(s)
	}
	slices.Sort(out)
	return out
}

func TestSchemaRulesAreTheCores(t *testing.T) {
	t.Parallel()
	statuses := sortedStrings(orders.Statuses...)
	require.Equal(t, statuses, enumOf(t, reflect.TypeFor[PlayerOrderBody](), "Status"))
	require.Equal(t, statuses, enumOf(t, reflect.TypeFor[AdminOrderBody](), "Status"))
	require.Equal(t, statuses, enumOf(t, reflect.TypeFor[OrderTransitionBody](), "To"))
	types := sortedStrings(catalogue.GiftCard, catalogue.Coupon, catalogue.DigitalCredit, catalogue.Physical)
	require.Equal(t, types, enumOf(t, reflect.TypeFor[PlayerOrderBody](), "Type"))
	require.Equal(t, types, enumOf(t, reflect.TypeFor[AdminOrderBody](), "Type"))
	require.Equal(t, sortedStrings(studio.Live, studio.Test), enumOf(t, reflect.TypeFor[AdminOrderBody](), "Environment"))
	require.Equal(t, strconv.Itoa(orders.MaxQuantity), tagOf(t, reflect.TypeFor[PurchaseBody](), "Quantity", "maximum"))
}

func TestPlayerOrderBodyShowsMoneyInUnitsAndTheCodes(t *testing.T) {
	t.Parallel()
	expiry := time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC)
	v := orders.View{
		Order: orders.Order{ID: uuid.New(), RewardID: uuid.New(), CoinID: uuid.New(), RewardType: catalogue.GiftCard, Status: orders.Success,
			Denomination: money.Amount(50050), Quantity: 2, FaceValue: money.Amount(100100), CoinsSpent: 9510},
		Codes: []orders.Code{
			{Code: "AAA", Pin: "1234", ProviderVoucherID: "V-1", Value: money.Amount(50050), Expiry: &expiry},
			{Code: "BBB", Value: money.Amount(50050)},
		},
		Balance: 490,
	}
	b := toPlayerOrderBody(v)
	require.Equal(t, v.ID, b.OrderID)
	require.Equal(t, "SUCCESS", b.Status)
	require.Equal(t, "GIFT_CARD", b.Type)
	require.Equal(t, 500.5, b.Denomination)
	require.Equal(t, 1001.0, b.FaceValue)
	require.EqualValues(t, 9510, b.CoinsSpent)
	require.EqualValues(t, 490, b.Balance)
	require.Len(t, b.Codes, 2)
	require.Equal(t, "1234", *b.Codes[0].Pin)
	require.Equal(t, "V-1", *b.Codes[0].ProviderVoucherID)
	require.Equal(t, 500.5, b.Codes[0].Value)
	require.Equal(t, &expiry, b.Codes[0].Expiry)

	raw, err := json.Marshal(b.Codes[1])
	require.NoError(t, err)
	require.JSONEq(t, `{"code":"BBB","pin":null,"providerVoucherId":null,"value":500.5,"expiry":null}`, string(raw))

	raw, err = json.Marshal(toPlayerOrderBody(orders.View{Order: orders.Order{Status: orders.Timeout}}))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"codes":[]`, "an order without codes lists none rather than null")
}

func TestAdminOrderBodyCountsCodesAndShowsTheHistory(t *testing.T) {
	t.Parallel()
	initiated, processing := orders.Initiated, orders.Processing
	at := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	refund := uuid.New()
	o := orders.Order{ID: uuid.New(), Environment: studio.Live, Status: orders.Failed, RewardType: catalogue.Physical,
		Denomination: money.Amount(49900), Quantity: 1, FaceValue: money.Amount(49900), RefundTxID: &refund,
		FailureReason: "refused by the voucher provider: no", Address: &players.Address{Line1: "12 MG Road", City: "Bengaluru", PinCode: "560001"},
		Codes: []orders.SealedCode{{Code: []byte("sealed")}}}
	history := []orders.Transition{
		{To: orders.Initiated, Reason: "coins debited", At: at},
		{From: &initiated, To: orders.Processing, Reason: "sent to the voucher provider", At: at.Add(time.Second)},
		{From: &processing, To: orders.Failed, Reason: "refused", At: at.Add(2 * time.Second)},
	}
	b := toAdminOrderBody(o, history)
	require.Equal(t, 1, b.CodeCount)
	require.Equal(t, "live", b.Environment)
	require.Equal(t, 499.0, b.FaceValue)
	require.Equal(t, &refund, b.RefundTransactionID)
	require.Equal(t, "refused by the voucher provider: no", *b.FailureReason)
	require.Nil(t, b.ProviderProduct)
	require.Equal(t, "Bengaluru", b.Address.City)
	require.Len(t, b.Transitions, 3)
	require.Nil(t, b.Transitions[0].From)
	require.Equal(t, "INITIATED", *b.Transitions[1].From)
	require.Equal(t, "FAILED", b.Transitions[2].To)

	raw, err := json.Marshal(toAdminOrderBody(orders.Order{}, nil))
	require.NoError(t, err)
	require.Contains(t, string(raw), `"failureReason":null`)
	require.Contains(t, string(raw), `"address":null`)
	require.Contains(t, string(raw), `"transitions":[]`)
	require.NotContains(t, string(raw), `"codes"`, "the operator never sees codes")
}

func TestPurchaseIsRefusedWhileDecoding(t *testing.T) {
	t.Parallel()
	reward, coin := uuid.NewString(), uuid.NewString()
	for _, c := range []struct {
		name, body, code string
		status           int
		location         string
	}{
		{"malformed reward", `{"rewardId":"nope","coinId":"` + coin + `"}`, "REWARD_NOT_FOUND", http.StatusNotFound, ""},
		{"malformed coin", `{"rewardId":"` + reward + `","coinId":"nope"}`, "COIN_NOT_FOUND", http.StatusNotFound, ""},
		{"three decimals", `{"rewardId":"` + reward + `","coinId":"` + coin + `","denomination":10.999}`, "VALIDATION_FAILED", http.StatusBadRequest, "body.denomination"},
		{"negative denomination", `{"rewardId":"` + reward + `","coinId":"` + coin + `","denomination":-5}`, "VALIDATION_FAILED", http.StatusBadRequest, "body.denomination"},
		{"bad denomination before a bad id", `{"rewardId":"nope","coinId":"` + coin + `","denomination":1.001}`, "VALIDATION_FAILED", http.StatusBadRequest, "body.denomination"},
		{"too many", `{"rewardId":"` + reward + `","coinId":"` + coin + `","quantity":6}`, "VALIDATION_FAILED", http.StatusBadRequest, "body.quantity"},
		{"none", `{"rewardId":"` + reward + `","coinId":"` + coin + `","quantity":0}`, "VALIDATION_FAILED", http.StatusBadRequest, "body.quantity"},
		{"no coin", `{"rewardId":"` + reward + `"}`, "VALIDATION_FAILED", http.StatusBadRequest, ""},
	} {
		a := send(t, http.MethodPost, "/rewards/purchase", c.body, nil)
		require.Equal(t, c.status, a.status, c.name)
		body := a.json(t)
		require.Equal(t, c.code, body["code"], c.name)
		if c.location != "" {
			require.Equal(t, c.location, body["details"].([]any)[0].(map[string]any)["location"], c.name)
		}
		require.Empty(t, a.header.Get("x-idempotent-replay"), c.name)
	}
	a := send(t, http.MethodPost, "/rewards/purchase", `{"rewardId":"`+reward+`","coinId":"`+coin+`"}`,
		map[string]string{"x-idempotency-key": strings.Repeat("k", 256)})
	require.Equal(t, http.StatusBadRequest, a.status)
}

func TestPlayerOrderReadsRefusedOrAnsweredWhileDecoding(t *testing.T) {
	t.Parallel()
	en := map[string]string{"x-language": "en"}

	a := send(t, http.MethodGet, "/player/orders/nope", "", en)
	require.Equal(t, http.StatusNotFound, a.status)
	require.Equal(t, "ORDER_NOT_FOUND", a.json(t)["code"])

	a = send(t, http.MethodGet, "/player/orders?rewardId=nope&limit=5&page=2", "", en)
	require.Equal(t, http.StatusOK, a.status)
	require.JSONEq(t, `{"items":[],"page":2,"limit":5,"total":0}`, string(a.body))

	for _, path := range []string{"/player/orders", "/player/orders/" + uuid.NewString()} {
		a = send(t, http.MethodGet, path, "", nil)
		require.Equal(t, http.StatusBadRequest, a.status, path)
		require.Equal(t, "VALIDATION_FAILED", a.json(t)["code"], path)
		a = send(t, http.MethodGet, path, "", map[string]string{"x-language": "english!"})
		require.Equal(t, http.StatusBadRequest, a.status, path)
	}
	a = send(t, http.MethodGet, "/player/orders?limit=101", "", en)
	require.Equal(t, http.StatusBadRequest, a.status)
}

func TestVerifyOfAMalformedIDIsFalseNot404(t *testing.T) {
	t.Parallel()
	a := send(t, http.MethodGet, "/rewards/orders/nope/verify", "", nil)
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "false", strings.TrimSpace(string(a.body)))
}

func TestOperatorOrderOfAMalformedIDIsNotFound(t *testing.T) {
	t.Parallel()
	a := send(t, http.MethodGet, "/admin/v1/orders/nope", "", nil)
	require.Equal(t, http.StatusNotFound, a.status)
	require.Equal(t, "ORDER_NOT_FOUND", a.json(t)["code"])
}

func TestDocument(t *testing.T) {
	t.Parallel()
	doc := untouchedServer().API.OpenAPI()

	verify := doc.Paths["/rewards/orders/{orderId}/verify"].Get
	require.Equal(t, []map[string][]string{{"apiKey": {}}}, verify.Security, "verify takes the key alone")
	require.Equal(t, "boolean", verify.Responses["200"].Content["application/json"].Schema.Type)
	require.NotContains(t, verify.Responses, "404")

	purchase := doc.Paths["/rewards/purchase"].Post
	require.Contains(t, purchase.Responses, "200")
	require.Contains(t, purchase.Responses["200"].Headers, httpapi.ReplayHeader)
	for _, status := range []string{"400", "404", "409", "422"} {
		require.Contains(t, purchase.Responses, status)
	}
	require.Equal(t, []string{"Rewards"}, purchase.Tags)
	require.Equal(t, []string{"Player"}, doc.Paths["/player/orders"].Get.Tags)
	require.Equal(t, []string{httpapi.TagOperator}, untouchedServer().OperatorAPI.OpenAPI().Paths["/admin/v1/orders/{orderId}"].Get.Tags)
}
