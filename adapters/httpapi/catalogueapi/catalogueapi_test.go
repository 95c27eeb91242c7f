package catalogueapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
)

const operatorToken = "catalogueapi-test-operator-token"

// untouchedServer serves the catalogue over storage that panics if reached: the requests below
// must be refused while decoding. It is built once: httpapi.New installs Huma's error model,
// a package-wide setting.
var untouchedServer = sync.OnceValue(func() *httpapi.Server {
	box, err := sealed.New(bytes.Repeat([]byte{7}, 32))
	if err != nil {
		panic(err)
	}
	run := &memstore.Runner{}
	svc := catalogue.NewService(run, memstore.New[catalogue.Repo](run, nil), memstore.New[coins.Repo](run, nil),
		memstore.New[studio.Repo](run, nil), catalogue.Config{Currency: "INR", Box: box})
	s := httpapi.New(httpapi.Config{AdminToken: operatorToken, Hosts: httpapi.Hosts{Dev: []string{"example.com"}},
		Log: slog.New(slog.DiscardHandler)})
	Register(s, svc)
	return s
})

func enumOf(t *testing.T, typ reflect.Type, field string) []string {
	t.Helper()
	f, ok := typ.FieldByName(field)
	require.True(t, ok, field)
	list := strings.Split(f.Tag.Get("enum"), ",")
	slices.Sort(list)
	return list
}

func TestEnumsAreTheCoreOrders(t *testing.T) {
	t.Parallel()
	require.Equal(t, slices.Sorted(maps.Keys(catalogue.ContentLogics)), enumOf(t, reflect.TypeFor[listInput](), "ContentLogic"))
	require.Equal(t, slices.Sorted(maps.Keys(catalogue.SortBys)), enumOf(t, reflect.TypeFor[searchInput](), "SortBy"))
}

func TestDocumentsBothShapesAndCreatedAnswers(t *testing.T) {
	t.Parallel()
	doc := untouchedServer().API.OpenAPI()
	schemas := doc.Components.Schemas.Map()
	require.Contains(t, schemas, "RewardShapeA")
	require.Contains(t, schemas, "RewardShapeB")
	for _, path := range []string{"/admin/v1/catalogue/categories/{code}", "/admin/v1/catalogue/brands/{code}", "/admin/v1/catalogue/products/{productId}"} {
		require.Contains(t, untouchedServer().PathItem(path).Put.Responses, "201", path)
		require.Contains(t, untouchedServer().PathItem(path).Put.Responses, "200", path)
	}
	require.Empty(t, doc.Paths["/r/{code}"].Get.Security)
	require.Contains(t, doc.Paths["/r/{code}"].Get.Responses, "302")
}

func send(t *testing.T, s *httpapi.Server, method, path, body string) (int, map[string]any) {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+operatorToken)
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	var out map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &out)
	return rec.Code, out
}

func TestMoneyWithMoreThanTwoDecimalsIsRefused(t *testing.T) {
	t.Parallel()
	s := untouchedServer()
	for _, c := range []struct{ method, path, body, location string }{
		{http.MethodPost, "/admin/v1/catalogue/rewards",
			`{"type":"GIFT_CARD","brandCode":"AMAZON","name":"Amazon","denominations":[500,10.999]}`, "body.denominations[1]"},
		{http.MethodPost, "/admin/v1/catalogue/rewards",
			`{"type":"COUPON","brandCode":"AMAZON","name":"Deal","mrp":100.001,"sellingPrice":50}`, "body.mrp"},
		{http.MethodPatch, "/admin/v1/catalogue/rewards/9f0c3b52-4a57-4a38-9d0e-0d5c1f1a6b11", `{"discountPct":12.345}`, "body.discountPct"},
		{http.MethodPut, "/admin/v1/catalogue/products/SKU-1",
			`{"name":"Shoe","mrp":10,"listingPrice":9.999,"discountedListingPrice":9,"priceUpdatedAt":"2025-01-01T00:00:00Z"}`, "body.listingPrice"},
		{http.MethodPut, "/admin/v1/games/9f0c3b52-4a57-4a38-9d0e-0d5c1f1a6b11/rewards/9f0c3b52-4a57-4a38-9d0e-0d5c1f1a6b11",
			`{"coinPrices":{"gems":10}}`, "body.coinPrices.gems"},
	} {
		status, body := send(t, s, c.method, c.path, c.body)
		require.Equal(t, http.StatusBadRequest, status, c.body)
		require.Equal(t, "VALIDATION_FAILED", body["code"], c.body)
		require.Equal(t, c.location, body["details"].([]any)[0].(map[string]any)["location"], c.body)
	}
	status, body := send(t, s, http.MethodPost, "/admin/v1/catalogue/rewards", `{"type":"GIFT_CARD","brandCode":"AMAZON","name":"A","denominations":[-5]}`)
	require.Equal(t, http.StatusBadRequest, status)
	require.Equal(t, "VALIDATION_FAILED", body["code"])
}

func TestMalformedIDsAreNotFound(t *testing.T) {
	t.Parallel()
	s := untouchedServer()
	status, body := send(t, s, http.MethodGet, "/admin/v1/catalogue/rewards/nope", "")
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "REWARD_NOT_FOUND", body["code"])
	status, body = send(t, s, http.MethodPut, "/admin/v1/games/nope/rewards/9f0c3b52-4a57-4a38-9d0e-0d5c1f1a6b11", `{"hidden":true}`)
	require.Equal(t, http.StatusNotFound, status)
	require.Equal(t, "GAME_NOT_FOUND", body["code"])
}

func TestRewardChangeSetsOnlyWhatWasSent(t *testing.T) {
	t.Parallel()
	var in updateRewardInput
	require.NoError(t, json.Unmarshal([]byte(`{"name":"New","endDate":null,"denominations":[10.99],"purchaseCooldown":60}`), &in.Body))
	ch, err := in.change(t.Context())
	require.NoError(t, err)
	r := catalogue.Reward{Name: "Old", Description: "kept", CampaignTitle: "kept", IsActive: true, XScore: 3}
	ch.Apply(&r)
	require.Equal(t, "New", r.Name)
	require.Equal(t, "kept", r.Description)
	require.Equal(t, "kept", r.CampaignTitle)
	require.True(t, r.IsActive)
	require.Equal(t, 3.0, r.XScore)
	require.Nil(t, r.EndDate)
	require.EqualValues(t, []int64{1099}, []int64{int64(r.Denominations[0])})
	require.EqualValues(t, 60, r.PurchaseCooldown.Seconds())
	require.Nil(t, ch.SharedCode)
}
