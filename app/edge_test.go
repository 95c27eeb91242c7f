package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// maxErrorBody is the most a 4xx answer may weigh ("Bounded answers, whatever comes in").
const maxErrorBody = 16 << 10

// secretSentinel is a credential sent in bad requests, which no answer may repeat.
const secretSentinel = "sentinel-s3cret-Zq9"

// manyUnknownFields is a JSON object of n unknown fields, with a credential among them.
func manyUnknownFields(n int) string {
	var b strings.Builder
	b.WriteString(`{"client_id":"rk_test_x","client_secret":"` + secretSentinel + `"`)
	for i := range n {
		fmt.Fprintf(&b, `,"unknown%d":%d`, i, i)
	}
	return b.String() + "}"
}

// A request of 2,000 unknown fields (23 kB, no credential needed) made a 38 MB answer: each
// field was a detail repeating the whole body. Now it is one detail naming 20 of them.
func TestUnknownFieldsMakeOneSmallDetail(t *testing.T) {
	t.Parallel()
	a := setup(t)
	body := manyUnknownFields(2000)
	require.Equal(t, 200, a.do("GET", "/healthz", "", nil, "").Status) // the checked client reads the documents first
	start := time.Now()
	r := a.do("POST", "/partner/v1/token", "", nil, body)
	took := time.Since(start)
	requireError(t, r, 400, "VALIDATION_FAILED")
	t.Logf("%d bytes of request: %d bytes of answer in %v", len(body), len(r.Raw), took)
	require.Less(t, len(r.Raw), 2048, string(r.Raw))
	require.Less(t, took, time.Second, "the answer is made in linear time")
	require.NotContains(t, string(r.Raw), secretSentinel)
	details := r.Body["details"].([]any)
	require.Len(t, details, 1, string(r.Raw))
	d := details[0].(map[string]any)
	require.Equal(t, "body", d["location"])
	require.Contains(t, d["message"], "unknown fields: ")
	require.Contains(t, d["message"], "2000 unknown fields: ", "the count comes first unknown fields are named")
	require.NotContains(t, d, "value")

	// Many failures that are not unknown fields: at most 20 details, the rest counted.
	items := strings.TrimSuffix(strings.Repeat(`-1,`, 5000), ",")
	r = a.admin("POST", "/admin/v1/catalogue/rewards", `{"type":"GIFT_CARD","brandCode":"`+strings.Repeat("B", 5000)+`","name":"x","valueType":"FIXED","denominations":[`+items+`]}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Less(t, len(r.Raw), maxErrorBody)
	require.LessOrEqual(t, len(r.Body["details"].([]any)), 20)
}

// A malformed body, or one of a type the operation does not read, is refused without repeating
// it: it may hold credentials.
func TestRefusedBodiesAreNeverRepeated(t *testing.T) {
	t.Parallel()
	a := setup(t)
	withSecret := `{"client_id":"rk_test_x","client_secret":"` + secretSentinel + `"`
	r := a.do("POST", "/partner/v1/token", "", nil, withSecret)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.NotContains(t, string(r.Raw), secretSentinel)

	r = a.do("POST", "/partner/v1/token", "", map[string]string{"Content-Type": "text/xml"}, withSecret+"}")
	requireError(t, r, 415, "UNSUPPORTED_MEDIA_TYPE")
	require.NotContains(t, string(r.Raw), secretSentinel)

	// A credential is never a detail's value, even where it is the failure.
	r = a.do("POST", "/partner/v1/token", "", nil, `{"client_id":"rk_test_x","client_secret":"`+secretSentinel+strings.Repeat("x", 600)+`"}`)
	require.NotContains(t, string(r.Raw), secretSentinel, "%d %s", r.Status, r.Raw)
}

// Text that is not UTF-8 is 400 at the edge, in a path, a query or a body (it was a 500 where
// it reached PostgreSQL), and so are numbers that are not finite.
func TestTextThatIsNotUTF8AndNumbersThatAreNotFiniteAre400(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	tok := p.token(g.key, "")
	game := map[string]string{"x-api-key": g.key}
	partner := map[string]string{"Authorization": "Bearer " + tok}
	operator := map[string]string{"Authorization": "Bearer " + adminToken}
	for _, c := range []struct {
		name, method, path string
		headers            map[string]string
		body               any
		location           string
	}{
		{"a redirect code", "GET", "/r/%ff", nil, nil, "path"},
		{"a touchpoint name", "GET", "/touchpoints/name/%ff%fe", game, nil, "path"},
		{"a brand search", "GET", "/partner/v1/gift-cards/brands?search=%ff", partner, nil, "query.search"},
		{"an order list filter", "GET", "/partner/v1/gift-cards/orders?reference=%c3", partner, nil, "query.reference"},
		{"an operator's reward list", "GET", "/admin/v1/catalogue/rewards?search=caf%e9", operator, nil, "query.search"},
		{"a JSON body", "POST", "/partner/v1/token", nil, "{\"client_id\":\"rk_test_\xff\"}", "body"},
		{"an idempotency key", "POST", "/coins/" + uuid.NewString() + "/distribute", map[string]string{"x-api-key": g.key, "X-Idempotency-Key": "k\xff"}, `{}`, "header.X-Idempotency-Key"},
		{"NaN", "GET", "/partner/v1/gift-cards/brands/AMAZON/stock?denomination=NaN", partner, nil, "query.denomination"},
		{"Infinity", "GET", "/partner/v1/gift-cards/brands/AMAZON/stock?denomination=Infinity", partner, nil, "query.denomination"},
		{"-Inf", "GET", "/partner/v1/gift-cards/brands/AMAZON/stock?denomination=-Inf", partner, nil, "query.denomination"},
	} {
		r := p.call(c.method, c.path, "", c.headers, c.body)
		requireError(t, r, 400, "VALIDATION_FAILED")
		details, _ := r.Body["details"].([]any)
		require.NotEmpty(t, details, "%s: %s", c.name, r.Raw)
		require.Equal(t, c.location, details[0].(map[string]any)["location"], "%s: %s", c.name, r.Raw)
	}
}

// Every operation, sent what an attacker would send (unknown, malformed and wrongly typed
// bodies, unknown and malformed ids, text that is not UTF-8, numbers that are not finite,
// oversized values), answers a status and a code that its documents declare (the checked
// client reports any other), never a 5xx, and never more than 16 KiB of error.
func TestEveryOperationAnswersBadInputAsDeclared(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	g := p.game("WALLET", 0)
	partnerToken := p.token(g.key, "")
	player := p.call("POST", "/player/create-with-uuid", "", map[string]string{"x-api-key": g.key}, `{"uuid":"p-sweep"}`)
	require.Equal(t, 201, player.Status, string(player.Raw))
	player = p.call("POST", "/player/login/federatedByStudio", "", map[string]string{"x-api-key": g.key}, `{"uuid":"p-sweep"}`)
	playerToken, _ := player.Body["access_token"].(string)
	require.NotEmpty(t, playerToken, string(player.Raw))
	studios := p.admin("GET", "/admin/v1/studios", nil)
	require.Equal(t, 200, studios.Status)
	var list []map[string]any
	require.NoError(t, json.Unmarshal(studios.Raw, &list))
	studioID := list[0]["id"].(string)

	ops := servedOperations()
	studioToken := ""
	if slices.ContainsFunc(ops, func(op operation) bool {
		return slices.ContainsFunc(op.Security, func(req map[string][]string) bool { _, ok := req["studioBearer"]; return ok })
	}) {
		studioToken = studioOwner(t, p, g.id)
	}

	credentials := func(op *huma.Operation) map[string]string {
		h := map[string]string{}
		for _, req := range op.Security {
			for scheme := range req {
				switch scheme {
				case "apiKey":
					h["x-api-key"] = g.key
				case "playerBearer":
					h["Authorization"] = "Bearer " + playerToken
				case "partnerBearer":
					h["Authorization"] = "Bearer " + partnerToken
				case "operatorBearer":
					h["Authorization"] = "Bearer " + adminToken
				case "studioBearer":
					h["Authorization"] = "Bearer " + studioToken
				}
			}
		}
		return h
	}
	known := map[string]string{"gameId": g.id.String(), "studioId": studioID, "environment": "test"}
	fill := func(path string, value func(name string) string) string {
		return regexp.MustCompile(`\{([^}]+)\}`).ReplaceAllStringFunc(path, func(m string) string {
			return url.PathEscape(value(m[1 : len(m)-1]))
		})
	}
	bad := []struct {
		name, contentType, body string
	}{
		{"unknown fields", "application/json", manyUnknownFields(2000)},
		{"malformed JSON", "application/json", `{"client_secret":"` + secretSentinel + `",`},
		{"not UTF-8", "application/json", "{\"name\":\"\xff\xfe\"}"},
		{"not finite", "application/json", `{"amount":NaN}`},
		{"wrong type", "text/xml", `<a>` + secretSentinel + `</a>`},
		{"an array of everything", "application/json", `[` + strings.Repeat(`{"a":1},`, 5000) + `{}]`},
		{"wrong shapes", "application/json", `{"amount":"x","name":7,"items":{},"players":"y","enabled":"maybe","uuid":[1]}`},
	}
	check := func(op operation, what string, r response) {
		t.Helper()
		assert.Less(t, r.Status, 500, "%s %s (%s): %s", op.Method, op.path, what, r.Raw)
		if r.Status >= 400 {
			assert.Less(t, len(r.Raw), maxErrorBody, "%s %s (%s)", op.Method, op.path, what)
			assert.NotContains(t, string(r.Raw), secretSentinel, "%s %s (%s)", op.Method, op.path, what)
		}
	}
	sent := 0
	for _, op := range ops {
		if op.path == "/metrics" || op.path == "/readyz" || strings.HasPrefix(op.path, "/files/") || strings.HasPrefix(op.path, "/webhooks/") {
			// Not JSON operations (metrics, the payment providers' signed webhooks), or ones this
			// server has nothing behind (no file store, no readiness probe).
			continue
		}
		headers := credentials(op.Operation)
		for _, param := range op.Parameters {
			// An id in a path is opaque: one that is malformed is as unknown as any other (404),
			// which a format would make a 400.
			if param.In == "path" {
				assert.Empty(t, param.Schema.Format, "%s: path parameter %s", op.OperationID, param.Name)
			}
		}
		// Ids that do not exist, and ids that cannot be ids: 404 for both, as an unknown id.
		for _, id := range []string{uuid.NewString(), "not-an-id"} {
			path := fill(op.path, func(name string) string {
				if name == "environment" {
					return "test"
				}
				return id
			})
			var body any
			if op.RequestBody != nil {
				body = `{}`
			}
			check(op, "id "+id, p.call(op.Method, path, "", headers, body))
			sent++
		}
		// The game's own ids, so that the bad input below reaches the operation's validation.
		path := fill(op.path, func(name string) string {
			if v, ok := known[name]; ok {
				return v
			}
			return uuid.NewString()
		})
		for _, param := range op.Parameters {
			if param.In != "query" {
				continue
			}
			values := []string{"%ff", url.QueryEscape(strings.Repeat("é", 5000))}
			if param.Schema != nil && (param.Schema.Type == huma.TypeNumber || param.Schema.Type == huma.TypeInteger) {
				values = append(values, "NaN", "Infinity", "1e400", "-1")
			}
			for _, v := range values {
				check(op, "query "+param.Name+"="+v[:min(len(v), 12)], p.call(op.Method, path+"?"+param.Name+"="+v, "", headers, nil))
				sent++
			}
		}
		if op.RequestBody == nil {
			continue
		}
		for _, b := range bad {
			h := map[string]string{"Content-Type": b.contentType}
			for k, v := range headers {
				h[k] = v
			}
			check(op, b.name, p.call(op.Method, path, "", h, b.body))
			sent++
		}
	}
	t.Logf("%d operations, %d bad requests", len(ops), sent)
}

// studioOwner makes an owner of the studio of gameID as a studio would get one (the operator
// invites, the invitation is accepted) and returns a session token of theirs.
func studioOwner(t *testing.T, p *partnerAPI, gameID uuid.UUID) string {
	t.Helper()
	g, err := p.m.Studios.GetGame(context.Background(), gameID)
	require.NoError(t, err)
	email := "owner-" + uuid.NewString()[:8] + "@studio.example"
	r := p.admin("POST", "/admin/v1/studios/"+g.StudioID.String()+"/members", map[string]any{"email": email, "role": "OWNER"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	link, _ := r.Body["inviteUrl"].(string)
	invite := link[strings.LastIndex(link, "/")+1:]
	const password = "a studio owner's password"
	r = p.call("POST", "/studio/v1/invites/"+invite+"/accept", "", nil, map[string]any{"name": "Owner", "password": password})
	require.Equal(t, 200, r.Status, string(r.Raw))
	r = p.call("POST", "/studio/v1/sessions", "", nil, map[string]any{"email": email, "password": password})
	require.Equal(t, 201, r.Status, string(r.Raw))
	token, _ := r.Body["token"].(string)
	require.NotEmpty(t, token)
	return token
}
