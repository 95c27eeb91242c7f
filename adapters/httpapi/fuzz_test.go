package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
)

// fuzzSecret is a credential in the seeds. Each fuzzed body carries a new one (newSecret), so
// that the fuzzer cannot copy it where it is not a credential (into a field's name).
const fuzzSecret = "fuzz-s3cret-Kq7"

func newSecret() string { return "s3cret-" + strconv.FormatUint(rand.Uint64(), 36) }

type fuzzBody struct {
	ClientSecret string  `json:"client_secret" maxLength:"64"`
	Name         string  `json:"name" minLength:"1" maxLength:"32"`
	Amount       float64 `json:"amount" minimum:"1" maximum:"1000"`
	Items        []struct {
		Code  string `json:"code" pattern:"^[A-Z]+$"`
		Count int    `json:"count" minimum:"1"`
	} `json:"items" maxItems:"5"`
}

type fuzzInput struct {
	ID     string  `path:"id"`
	Search string  `query:"search" maxLength:"100"`
	Value  float64 `query:"value"`
	Body   fuzzBody
}

// fuzzServer is the kit with one operation that reads a path, a query and a JSON body, as
// every operation of the service does.
func fuzzServer(f *testing.F) http.Handler {
	s := httpapi.New(httpapi.Config{Log: slog.New(slog.DiscardHandler), MaxBodyBytes: 1 << 20})
	huma.Register(s.API, huma.Operation{
		OperationID: "fuzz", Method: http.MethodPost, Path: "/things/{id}", Summary: "fuzz", Description: "fuzz", Tags: []string{"Fuzz"},
	}, func(ctx context.Context, in *fuzzInput) (*struct{}, error) { return nil, nil })
	return s.Handler()
}

// checkAnswer holds every answer to the bounds of "Bounded answers, whatever comes in".
func checkAnswer(t *testing.T, res *http.Response, secret string) {
	t.Helper()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode >= 500 {
		t.Fatalf("answered %d: %s", res.StatusCode, raw)
	}
	if res.StatusCode < 400 {
		return
	}
	if len(raw) >= 16<<10 {
		t.Fatalf("a %d of %d bytes", res.StatusCode, len(raw))
	}
	if bytes.Contains(raw, []byte(secret)) {
		t.Fatalf("the answer repeats a credential: %s", raw)
	}
	var e struct {
		Code    string            `json:"code"`
		Details []json.RawMessage `json:"details"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" {
		t.Fatalf("not an error body (%v): %s", err, raw)
	}
	if len(e.Details) > 20 {
		t.Fatalf("%d details", len(e.Details))
	}
}

// FuzzBodies sends arbitrary bodies through Huma's decoder, its validation and the error
// writer: whatever comes in, the answer is small, is an error body or a success, and never
// repeats a credential.
func FuzzBodies(f *testing.F) {
	h := fuzzServer(f)
	for _, seed := range []string{
		`{"name":"a","amount":5}`,
		`{"client_secret":"` + fuzzSecret + `","name":"","amount":-1,"x":1,"y":2}`,
		`{"client_secret":"` + fuzzSecret + `",`,
		`{"items":[{"code":"a","count":0},{"code":"b"},{},{},{},{},{}]}`,
		"{\"name\":\"\xff\"}",
		`{"amount":1e999}`,
		`[` + strings.Repeat(`{"a":1},`, 50) + `{}]`,
	} {
		f.Add([]byte(seed), uint8(0))
	}
	types := []string{"application/json", "", "text/xml", "application/merge-patch+json", "application/x-www-form-urlencoded"}
	f.Fuzz(func(t *testing.T, body []byte, ct uint8) {
		// The credential is in every body, wherever the fuzzer puts the rest.
		secret := newSecret()
		body = append([]byte(`{"client_secret":"`+secret+`",`), bytes.TrimPrefix(body, []byte("{"))...)
		req := httptest.NewRequest(http.MethodPost, "/things/1", bytes.NewReader(body))
		if c := types[int(ct)%len(types)]; c != "" {
			req.Header.Set("Content-Type", c)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		checkAnswer(t, rec.Result(), secret)
	})
}

// FuzzPathAndQuery sends arbitrary text in a path parameter and in query parameters: text
// that is not UTF-8 or not a finite number is 400, nothing is a 5xx, every error is small.
func FuzzPathAndQuery(f *testing.F) {
	h := fuzzServer(f)
	f.Add("abc", "caf\xe9", "NaN")
	f.Add("%ff", "x", "Infinity")
	f.Add("\x00", strings.Repeat("é", 200), "1e400")
	f.Add("ok", "ok", "-Inf")
	f.Fuzz(func(t *testing.T, id, search, value string) {
		target := "/things/" + url.PathEscape(id) + "?search=" + url.QueryEscape(search) + "&value=" + url.QueryEscape(value)
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(`{"name":"a","amount":5}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		res := rec.Result()
		if !utf8.ValidString(id) || !utf8.ValidString(search) {
			if res.StatusCode != http.StatusBadRequest {
				t.Fatalf("text that is not UTF-8 answered %d", res.StatusCode)
			}
		}
		if v := strings.ToLower(strings.TrimSpace(value)); strings.Contains(v, "nan") || strings.Contains(v, "inf") {
			if res.StatusCode != http.StatusBadRequest && res.StatusCode != http.StatusNotFound {
				t.Fatalf("value=%q answered %d", value, res.StatusCode)
			}
		}
		checkAnswer(t, res, newSecret())
	})
}
