package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestJSONHasNUL(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]bool{
		`{"a":"x"}`:               false,
		`{"a":"\u0000"}`:          true,
		`{"a":"\U0000"}`:          true,
		`{"a":"x\u0000y"}`:        true,
		`{"a":"\\u0000"}`:         false, // a backslash, then the text u0000
		`{"a":"\\\u0000"}`:        true,
		`{"a":"\u00001"}`:         true,
		`{"a":"\u0001"}`:          false,
		`{"a":"\u000"}`:           false,
		"{\"a\":\"x\x00\"}":       true,
		`{"a":"\"\u0000"}`:        true,
		`{"\u0000":1}`:            true,
		`{"a":"tail\`:             false,
		`{"a":"\u00`:              false,
		`["\\", "\\u0000\\"]`:     false,
		`["\\\\\u0000"]`:          true,
		`{"a":"\u0030\u0000\u0"}`: true,
	} {
		require.Equal(t, want, jsonHasNUL([]byte(body)), body)
	}
}

func TestRefuseNULLeavesBinaryBodiesAlone(t *testing.T) {
	t.Parallel()
	var got string
	h := refuseBadText(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		w.WriteHeader(http.StatusNoContent)
	}))
	for _, tc := range []struct {
		contentType, body string
		want              int
	}{
		{"multipart/form-data; boundary=x", "--x\r\n\x00\\u0000", http.StatusNoContent},
		{"application/octet-stream", "\x00", http.StatusNoContent},
		{"application/json", `{"a":"\\u0000"}`, http.StatusNoContent},
		{"application/json; charset=utf-8", `{"a":"\u0000"}`, http.StatusBadRequest},
		{"application/merge-patch+json", `{"a":"\u0000"}`, http.StatusBadRequest},
		{"", `{"a":"\u0000"}`, http.StatusBadRequest},
		{"application/x-www-form-urlencoded", "a=%00", http.StatusBadRequest},
		{"text/plain", "a\x00", http.StatusBadRequest},
	} {
		got = ""
		req := httptest.NewRequest(http.MethodPost, "/x", strings.NewReader(tc.body))
		if tc.contentType != "" {
			req.Header.Set("Content-Type", tc.contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		require.Equal(t, tc.want, rec.Code, "%s %q", tc.contentType, tc.body)
		if tc.want == http.StatusNoContent {
			require.Equal(t, tc.body, got, "the handler reads the body unchanged")
		}
	}

	req := httptest.NewRequest(http.MethodGet, "/x", nil)
	req.Header.Set("x-note", "a\x00b")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	require.Equal(t, http.StatusBadRequest, rec.Code)
	require.Contains(t, rec.Body.String(), "header.X-Note")
}
