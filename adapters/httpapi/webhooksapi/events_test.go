package webhooksapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
	"github.com/rewardsco/rewards/core/webhooks/webhooksfake"
)

// recordingTransport keeps the requests it is given and answers 200.
type recordingTransport struct{ sent []webhooks.Request }

func (*recordingTransport) CheckURL(string) error { return nil }

func (t *recordingTransport) Send(_ context.Context, r webhooks.Request) (int, error) {
	t.sent = append(t.sent, r)
	return http.StatusOK, nil
}

// The webhooks section documents what the service really sends: the headers of a request, the
// fields of its body, and a signature a receiver can check as the description says. The
// headers and signature are the same for every event; app's TestWebhookOrderEvents checks a
// real order event's body, TestWebhookPartnerWalletLowOncePerCrossing a PARTNER_WALLET_LOW's.
func TestWebhooksDocumentTheEventsSent(t *testing.T) {
	t.Parallel()
	transport := &recordingTransport{}
	svc, err := webhooks.NewService(memstore.New[webhooks.Repo](&memstore.Runner{}, webhooksfake.New()),
		webhooks.Options{SecretKey: make([]byte, 32), Transport: transport, Audit: testAudit()})
	require.NoError(t, err)
	ctx := context.Background()
	sc := webhooks.Scope{StudioID: uuid.New(), Environment: studio.Test}
	url, events := "https://hooks.example.com/rewards", []string{"COINS_CREDITED"}
	cfg, _, err := svc.Configure(ctx, sc, webhooks.Change{URL: &url, SubscribedEvents: &events})
	require.NoError(t, err)
	_, err = svc.SendTest(ctx, sc, studio.Caller{GameID: uuid.New(), Environment: studio.Test}, cfg.ID, "COINS_CREDITED")
	require.NoError(t, err)
	require.Len(t, transport.sent, 1)
	sent := transport.sent[0]

	doc := server().API.OpenAPI()
	require.ElementsMatch(t, webhooks.EventTypes, slices.Collect(maps.Keys(doc.Webhooks)))
	for typ, item := range doc.Webhooks {
		op := item.Post
		require.NotNil(t, op, typ)
		var headers []string
		for _, p := range op.Parameters {
			require.Equal(t, "header", p.In)
			headers = append(headers, p.Name)
		}
		// Content-Type is the request body's media type, not a parameter (OpenAPI ignores one).
		sentHeaders := slices.DeleteFunc(slices.Collect(maps.Keys(sent.Headers)), func(h string) bool { return h == "Content-Type" })
		require.ElementsMatch(t, sentHeaders, headers, "%s documents the headers sent", typ)
		require.Equal(t, "application/json", sent.Headers["Content-Type"])
		require.Equal(t, []string{"application/json"}, slices.Collect(maps.Keys(op.RequestBody.Content)))

		// The body's fields are the schema's, and the example is what the schema accepts. The
		// schema is CoinEvent's (OrderEvent's for order events, whose real bodies an app test
		// checks), inline (a client generator may prune a component only webhooks refer to).
		mt := op.RequestBody.Content["application/json"]
		schema := mt.Schema
		require.Empty(t, schema.Ref, typ)
		switch {
		case slices.Contains(webhooks.OrderEventTypes, typ):
			require.Same(t, doc.Components.Schemas.Map()["OrderEvent"], schema, typ)
		case typ == webhooks.PartnerWalletLow:
			require.Same(t, doc.Components.Schemas.Map()["PartnerWalletLowEvent"], schema, typ)
		default:
			require.Same(t, doc.Components.Schemas.Map()["CoinEvent"], schema, typ)
			var body map[string]any
			require.NoError(t, json.Unmarshal(sent.Body, &body))
			require.ElementsMatch(t, slices.Collect(maps.Keys(body)), slices.Collect(maps.Keys(schema.Properties)), typ)
		}
		require.ElementsMatch(t, schema.Required, slices.Collect(maps.Keys(schema.Properties)), "%s: every field is always sent", typ)
		require.ElementsMatch(t, slices.Collect(maps.Keys(mt.Example.(map[string]any))), slices.Collect(maps.Keys(schema.Properties)), typ)
		b, _ := json.Marshal(mt.Example)
		var example any
		require.NoError(t, json.Unmarshal(b, &example))
		res := &huma.ValidateResult{}
		huma.Validate(doc.Components.Schemas, mt.Schema, huma.NewPathBuffer(nil, 0), huma.ModeReadFromServer, example, res)
		require.Empty(t, res.Errors, typ)
		require.Equal(t, typ, example.(map[string]any)["event_type"])
		require.Contains(t, op.Description, "X-Service-Signature")
	}
	require.Equal(t, reflect.TypeFor[webhooks.Payload]().NumField(), reflect.TypeFor[CoinEvent]().NumField())

	// The signature is as documented: hex HMAC-SHA256 of "<t>.<raw body>" keyed with the
	// whole signing secret.
	sig := sent.Headers["X-Service-Signature"]
	tPart, v1, ok := strings.Cut(sig, ",v1=")
	require.True(t, ok, sig)
	ts := strings.TrimPrefix(tPart, "t=")
	require.Equal(t, sent.Headers["X-Service-Timestamp"], ts)
	m := hmac.New(sha256.New, []byte(cfg.Secret))
	m.Write([]byte(ts + "." + string(sent.Body)))
	require.Equal(t, hex.EncodeToString(m.Sum(nil)), v1)
}
