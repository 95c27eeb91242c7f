package app_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCoinMetadataIsCapped: metadata is kept with every journal entry forever, so it is capped at
// 4 KiB as JSON.
func TestCoinMetadataIsCapped(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Metadata")
	bearer := "Bearer " + a.federatedToken(g, "p-meta")
	move := func(op, body string) response {
		return a.asGame(g, "POST", "/coins/"+g.coinID+"/"+op, body, "Authorization", bearer)
	}
	// {"k":"…"} is 8 bytes of JSON around the value.
	metadata := func(n int) string { return `{"k":"` + strings.Repeat("x", n-8) + `"}` }

	r := move("distribute", `{"amount":5,"metadata":`+metadata(4096)+`}`)
	require.Equal(t, 201, r.Status, "exactly 4 KiB is kept: %s", r.Raw)

	r = move("distribute", `{"amount":5,"metadata":`+metadata(4097)+`}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Contains(t, r.Body["message"], "4 KiB")
	r = move("distribute", `{"amount":5,"metadata":`+metadata(1<<20-100)+`}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	requireError(t, move("deduct", `{"amount":1,"metadata":`+metadata(5000)+`}`), 400, "VALIDATION_FAILED")

	r = a.asGame(g, "GET", "/player/funds", "", "Authorization", bearer)
	require.Equal(t, 200, r.Status, string(r.Raw))
	var funds []map[string]any
	require.NoError(t, json.Unmarshal(r.Raw, &funds))
	require.EqualValues(t, 5, funds[0]["balance"], "only the first credit happened")
}

// TestNULCharactersAreRefused: PostgreSQL stores no NUL in text (nor \u0000 in jsonb), so every
// API refuses them up front with 400 VALIDATION_FAILED rather than failing with a 500.
func TestNULCharactersAreRefused(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("NUL")
	bearer := "Bearer " + a.federatedToken(g, "p-nul")
	requireNUL := func(r response, location string) {
		t.Helper()
		requireError(t, r, 400, "VALIDATION_FAILED")
		require.Contains(t, r.Body["message"], "NUL")
		details := r.Body["details"].([]any)
		require.Equal(t, location, details[0].(map[string]any)["location"], string(r.Raw))
	}

	requireNUL(a.asGame(g, "POST", "/player/create-with-uuid", `{"uuid":"a\u0000b"}`), "body")
	requireNUL(a.asGame(g, "POST", "/player/create-with-uuid", `{"uuid":"a\U0000b"}`), "body")
	move := func(body string) response {
		return a.asGame(g, "POST", "/coins/"+g.coinID+"/distribute", body, "Authorization", bearer)
	}
	requireNUL(move(`{"amount":1,"description":"a\u0000b"}`), "body")
	requireNUL(move(`{"amount":1,"reason":"BONUS\u0000"}`), "body")
	requireNUL(move(`{"amount":1,"referenceId":"r-\u0000"}`), "body")
	requireNUL(move(`{"amount":1,"metadata":{"note":"\u0000"}}`), "body")
	requireNUL(move("{\"amount\":1,\"description\":\"a\x00b\"}"), "body")
	requireNUL(a.admin("POST", "/admin/v1/studios", `{"name":"Pixel\u0000Forge"}`), "body")

	// An escaped backslash followed by u0000 is text, not a NUL.
	r := move(`{"amount":1,"description":"C:\\u0000"}`)
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = a.asGame(g, "GET", "/player/transactions", "", "Authorization", bearer, "x-language", "en")
	require.Equal(t, `C:\u0000`, r.Body["items"].([]any)[0].(map[string]any)["description"])

	requireNUL(a.asGame(g, "GET", "/rewards/search?coinId="+g.coinID+"&q=a%00b", "", "Authorization", bearer, "x-language", "en"), "query.q")
	requireNUL(a.admin("PUT", "/admin/v1/catalogue/categories/AB%00CD", `{"name":"x"}`), "path")
	requireNUL(a.asGame(g, "GET", "/player/funds?x=%00", "", "Authorization", bearer), "query.x")
	requireNUL(a.do("GET", "/r/a%00b", "", nil, ""), "path")
}

// TestFilesAreSandboxed: an uploaded file is served with nosniff and a sandboxing CSP, so a file
// that a browser would take for HTML or SVG cannot run script on the service's origin.
func TestFilesAreSandboxed(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Files")
	bearer := "Bearer " + a.federatedToken(g, "p-files")

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "pic.png")
	require.NoError(t, err)
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00"), bytes.Repeat([]byte{1}, 100)...)
	_, _ = fw.Write(png)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest("POST", a.srv.URL+"/player/gcommerce/profile/upload", &buf)
	require.NoError(t, err)
	req.Host = "localhost"
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("x-api-key", g.testKey)
	req.Header.Set("Authorization", bearer)
	r := a.send(req)
	require.Equal(t, 201, r.Status, "binary uploads may hold NUL bytes: %s", r.Raw)

	for _, path := range []string{r.Body["profilePictureUrl"].(string), "/files/no-such-file"} {
		got := a.do("GET", path, "", nil, "")
		require.Equal(t, "nosniff", got.Header.Get("X-Content-Type-Options"), path)
		require.Equal(t, "sandbox; default-src 'none'", got.Header.Get("Content-Security-Policy"), path)
	}
}

// TestServerOnlyCoinMovements: with the game's serverOnlyCoinMovements on, distribute and deduct
// need the game's server secret of the environment in x-api-secret; with it off they do not.
func TestServerOnlyCoinMovements(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Server")
	bearer := "Bearer " + a.federatedToken(g, "p-server")
	move := func(op, secret string) response {
		h := []string{"Authorization", bearer}
		if secret != "" {
			h = append(h, "x-api-secret", secret)
		}
		return a.asGame(g, "POST", "/coins/"+g.coinID+"/"+op, `{"amount":1}`, h...)
	}

	// Off by default: the API key and the player token are enough.
	require.Equal(t, 201, move("distribute", "").Status)
	require.Equal(t, 201, move("deduct", "").Status)

	r := a.admin("POST", "/admin/v1/games/"+g.id+"/server-secrets/test", "")
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, "test", r.Body["environment"])
	first := r.Body["serverSecret"].(string)
	require.Regexp(t, regexp.MustCompile(`^rks_test_[0-9A-Za-z]{32}$`), first)
	r = a.admin("POST", "/admin/v1/games/"+g.id+"/server-secrets/live", "")
	require.Equal(t, 201, r.Status, string(r.Raw))
	live := r.Body["serverSecret"].(string)
	require.Regexp(t, regexp.MustCompile(`^rks_live_[0-9A-Za-z]{32}$`), live)

	// Issuing a secret does not turn the setting on.
	require.Equal(t, 201, move("distribute", "").Status)

	r = a.admin("PATCH", "/admin/v1/games/"+g.id, `{"serverOnlyCoinMovements":true}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, g.id, r.Body["id"])
	require.Equal(t, true, r.Body["serverOnlyCoinMovements"])

	for _, op := range []string{"distribute", "deduct"} {
		requireError(t, move(op, ""), 403, "SERVER_SECRET_REQUIRED")
		requireError(t, move(op, "rks_test_"+strings.Repeat("0", 32)), 403, "SERVER_SECRET_REQUIRED")
		requireError(t, move(op, "nonsense"), 403, "SERVER_SECRET_REQUIRED")
		r = move(op, live)
		requireError(t, r, 403, "SERVER_SECRET_REQUIRED")
		require.Contains(t, r.Body["message"], "live")
		r = move(op, first)
		require.Equal(t, 201, r.Status, "%s: %s", op, r.Raw)
	}
	// So do the ways to act as a player without the player: federated login (a token for any
	// uuid, then its coins spent) and creating players by uuid, one or in bulk.
	for _, c := range []struct{ path, body string }{
		{"/player/login/federatedByStudio", `{"uuid":"p-server"}`},
		{"/player/create-with-uuid", `{"uuid":"p-new"}`},
		{"/player/create-with-bulk-uuids", `{"uuids":["p-bulk"]}`},
		{"/player/create-with-uuid-batch", `{"uuid":["p-batch"]}`},
	} {
		requireError(t, a.asGame(g, "POST", c.path, c.body), 403, "SERVER_SECRET_REQUIRED")
		requireError(t, a.asGame(g, "POST", c.path, c.body, "x-api-secret", live), 403, "SERVER_SECRET_REQUIRED")
		r = a.asGame(g, "POST", c.path, c.body, "x-api-secret", first)
		require.Contains(t, []int{200, 201}, r.Status, "%s: %s", c.path, r.Raw)
	}
	// Reads need no secret.
	require.Equal(t, 200, a.asGame(g, "GET", "/player/funds", "", "Authorization", bearer).Status)

	// A new secret replaces the old.
	r = a.admin("POST", "/admin/v1/games/"+g.id+"/server-secrets/test", "")
	require.Equal(t, 201, r.Status, string(r.Raw))
	second := r.Body["serverSecret"].(string)
	require.NotEqual(t, first, second)
	requireError(t, move("distribute", first), 403, "SERVER_SECRET_REQUIRED")
	require.Equal(t, 201, move("distribute", second).Status)

	// Another game's secret is no good either.
	other := a.newGame("Other")
	r = a.admin("POST", "/admin/v1/games/"+other.id+"/server-secrets/test", "")
	require.Equal(t, 201, r.Status, string(r.Raw))
	requireError(t, move("distribute", r.Body["serverSecret"].(string)), 403, "SERVER_SECRET_REQUIRED")

	// Off again: no secret needed.
	r = a.admin("PATCH", "/admin/v1/games/"+g.id, `{"serverOnlyCoinMovements":false}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, false, r.Body["serverOnlyCoinMovements"])
	require.Equal(t, 201, move("distribute", "").Status)

	// The operator's answers: 404 for an unknown game, 400 for an unknown environment.
	requireError(t, a.admin("POST", "/admin/v1/games/00000000-0000-4000-8000-000000000000/server-secrets/test", ""), 404, "GAME_NOT_FOUND")
	requireError(t, a.admin("PATCH", "/admin/v1/games/00000000-0000-4000-8000-000000000000", `{"serverOnlyCoinMovements":true}`), 404, "GAME_NOT_FOUND")
	requireError(t, a.admin("POST", "/admin/v1/games/"+g.id+"/server-secrets/staging", ""), 400, "VALIDATION_FAILED")
}

// TestURLsAreAtMost2048Characters: the document declares the game's store address and the
// coin's image address as format uri, with no maxLength (a generated client keeps a URL as
// url.URL and can check no length of it), so the service refuses addresses longer than
// 2,048 characters itself.
func TestURLsAreAtMost2048Characters(t *testing.T) {
	t.Parallel()
	a := setup(t)
	url := func(n int) string {
		return "https://cdn.example.com/" + strings.Repeat("a", n-len("https://cdn.example.com/"))
	}
	require.Len(t, url(2049), 2049)

	st := a.admin("POST", "/admin/v1/studios", `{"name":"Long URLs"}`)
	require.Equal(t, 201, st.Status, string(st.Raw))
	games := "/admin/v1/studios/" + st.Body["id"].(string) + "/games"
	r := a.admin("POST", games, `{"name":"Too long","storeUrl":"`+url(2049)+`"}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Contains(t, r.Body["message"], "2048")
	g := a.admin("POST", games, `{"name":"Long enough","storeUrl":"`+url(2048)+`"}`)
	require.Equal(t, 201, g.Status, string(g.Raw))
	require.Equal(t, url(2048), g.Body["storeUrl"])

	coins := "/admin/v1/games/" + g.Body["id"].(string) + "/coins"
	r = a.admin("POST", coins, `{"name":"Gems","imageUrl":"`+url(2049)+`"}`)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Contains(t, r.Body["message"], "2048")
	c := a.admin("POST", coins, `{"name":"Gems","imageUrl":"`+url(2048)+`"}`)
	require.Equal(t, 201, c.Status, string(c.Raw))
	require.Equal(t, url(2048), c.Body["url"])

	// Only the coin of the right length was created.
	key := g.Body["apiKeys"].(map[string]any)["test"].(string)
	r = a.do("GET", "/coins", "localhost", map[string]string{"X-Api-Key": key}, "")
	require.Equal(t, 200, r.Status, string(r.Raw))
	var listed []map[string]any
	require.NoError(t, json.Unmarshal(r.Raw, &listed))
	require.Len(t, listed, 1)
}
