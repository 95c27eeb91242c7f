package app_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// game is a tenant made through the operator API.
type game struct {
	id, coinID, testKey, liveKey string
}

func (a *testAPI) newGame(name string) game {
	a.t.Helper()
	st := a.admin("POST", "/admin/v1/studios", `{"name":"`+name+`"}`)
	require.Equal(a.t, 201, st.Status, string(st.Raw))
	g := a.admin("POST", "/admin/v1/studios/"+st.Body["id"].(string)+"/games", `{"name":"`+name+` Game"}`)
	require.Equal(a.t, 201, g.Status, string(g.Raw))
	c := a.admin("POST", "/admin/v1/games/"+g.Body["id"].(string)+"/coins", `{"name":"Gems","imageUrl":"https://cdn.example.com/gem.png"}`)
	require.Equal(a.t, 201, c.Status, string(c.Raw))
	keys := g.Body["apiKeys"].(map[string]any)
	return game{id: g.Body["id"].(string), coinID: c.Body["id"].(string), testKey: keys["test"].(string), liveKey: keys["live"].(string)}
}

func (a *testAPI) asGame(g game, method, path string, body string, headers ...string) response {
	a.t.Helper()
	h := map[string]string{"x-api-key": g.testKey}
	for i := 0; i+1 < len(headers); i += 2 {
		h[headers[i]] = headers[i+1]
	}
	return a.do(method, path, "localhost", h, body)
}

func (a *testAPI) federatedToken(g game, uuid string) string {
	a.t.Helper()
	r := a.asGame(g, "POST", "/player/create-with-uuid", `{"uuid":"`+uuid+`"}`)
	require.Equal(a.t, 201, r.Status, string(r.Raw))
	r = a.asGame(g, "POST", "/player/login/federatedByStudio", `{"uuid":"`+uuid+`"}`)
	require.Equal(a.t, 200, r.Status, string(r.Raw))
	require.Equal(a.t, "Bearer", r.Body["token_type"])
	return r.Body["access_token"].(string)
}

func TestOTPLogin(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("OTP")
	phone := "+919876543210"
	request := func() response { return a.asGame(g, "POST", "/player/request-otp", `{"phone":"`+phone+`"}`) }
	login := func(code string) response {
		return a.asGame(g, "POST", "/player/login", `{"phone":"`+phone+`","otp":"`+code+`"}`)
	}
	wrong := func(code string) string {
		if code == "000000" {
			return "000001"
		}
		return "000000"
	}

	r := request()
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, float64(300), r.Body["expiresIn"])
	require.Equal(t, float64(30), r.Body["resendAfter"])

	// Resend too soon.
	r = a.asGame(g, "POST", "/player/resend-otp", `{"phone":"`+phone+`"}`)
	requireError(t, r, 429, "OTP_RESEND_TOO_SOON")
	require.NotEmpty(t, r.Header.Get("Retry-After"))

	// Expired after 5 minutes.
	code := a.sms.lastCode(t, phone)
	a.clock.Advance(5*time.Minute + time.Second)
	requireError(t, login(code), 401, "OTP_EXPIRED")

	// Five wrong tries kill a code, even the right one afterwards.
	require.Equal(t, 200, request().Status)
	code = a.sms.lastCode(t, phone)
	for i := 0; i < 5; i++ {
		requireError(t, login(wrong(code)), 401, "OTP_INVALID")
	}
	requireError(t, login(code), 401, "OTP_ATTEMPTS_EXCEEDED")

	// A code works once, and the first login creates the player.
	a.clock.Advance(31 * time.Second)
	require.Equal(t, 200, request().Status)
	code = a.sms.lastCode(t, phone)
	r = login(code)
	require.Equal(t, 200, r.Status, string(r.Raw))
	token := r.Body["access_token"].(string)
	requireError(t, login(code), 401, "OTP_USED")
	p := a.asGame(g, "GET", "/player/profile", "", "Authorization", "Bearer "+token)
	require.Equal(t, 200, p.Status, string(p.Raw))
	require.Equal(t, phone, p.Body["phone"])

	// Ten failed checks an hour lock the phone out.
	a.clock.Advance(31 * time.Second)
	require.Equal(t, 200, request().Status)
	code = a.sms.lastCode(t, phone)
	for i := 0; i < 5; i++ { // 5 so far from the killed code above
		login(wrong(code))
	}
	requireError(t, login(code), 429, "OTP_RATE_LIMITED")
}

func TestOTPSendLimitPerHour(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Limit")
	for i := 0; i < 5; i++ {
		r := a.asGame(g, "POST", "/player/request-otp", `{"phone":"+14155550100"}`)
		require.Equal(t, 200, r.Status, string(r.Raw))
		a.clock.Advance(31 * time.Second)
	}
	r := a.asGame(g, "POST", "/player/request-otp", `{"phone":"+14155550100"}`)
	requireError(t, r, 429, "OTP_RATE_LIMITED")
	requireError(t, a.asGame(g, "POST", "/player/request-otp", `{"phone":"12345"}`), 400, "VALIDATION_FAILED")
}

func TestTokensAreBoundToGameAndEnvironment(t *testing.T) {
	t.Parallel()
	a := setup(t)
	ga, gb := a.newGame("A"), a.newGame("B")
	token := a.federatedToken(ga, "p-1")
	bearer := "Bearer " + token
	require.Equal(t, 200, a.asGame(ga, "GET", "/player/profile", "", "Authorization", bearer).Status)
	requireError(t, a.asGame(gb, "GET", "/player/profile", "", "Authorization", bearer), 401, "TOKEN_WRONG_GAME")
	requireError(t, a.do("GET", "/player/profile", "live.localhost", map[string]string{"x-api-key": ga.liveKey, "Authorization": bearer}, ""), 401, "TOKEN_WRONG_GAME")
	requireError(t, a.asGame(ga, "GET", "/player/profile", ""), 401, "TOKEN_MISSING")
	requireError(t, a.asGame(ga, "GET", "/player/profile", "", "Authorization", "Bearer "+token+"x"), 401, "TOKEN_INVALID")
	requireError(t, a.asGame(ga, "GET", "/player/funds", "", "Authorization", bearer, "x-game-uuid", "someone-else"), 403, "PLAYER_MISMATCH")
	require.Equal(t, 200, a.asGame(ga, "GET", "/player/funds", "", "Authorization", bearer, "x-game-uuid", "p-1").Status)
	requireError(t, a.asGame(ga, "POST", "/player/login/federatedByStudio", `{"uuid":"nobody"}`), 404, "PLAYER_NOT_FOUND")
}

func TestDeletedPlayerIsLockedOut(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Del")
	bearer := "Bearer " + a.federatedToken(g, "p-del")
	r := a.asGame(g, "DELETE", "/player/me", "", "Authorization", bearer)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, true, r.Body["isBlocked"])
	requireError(t, a.asGame(g, "GET", "/player/profile", "", "Authorization", bearer), 403, "PLAYER_DISABLED")
	requireError(t, a.asGame(g, "POST", "/player/login/federatedByStudio", `{"uuid":"p-del"}`), 403, "PLAYER_DISABLED")
	r = a.asGame(g, "POST", "/player/create-with-uuid", `{"uuid":"p-del"}`)
	require.Equal(t, 201, r.Status)
	require.Equal(t, true, r.Body["isBlocked"])
	require.Equal(t, false, r.Body["created"])
}

func TestBulkCreation(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Bulk")
	a.asGame(g, "POST", "/player/create-with-uuid", `{"uuid":"u1"}`)
	r := a.asGame(g, "POST", "/player/create-with-bulk-uuids", `{"uuids":["u1","u2","u3","u2"]}`)
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, float64(2), r.Body["createdCount"])
	require.Equal(t, float64(1), r.Body["existingCount"])
	r = a.asGame(g, "POST", "/player/create-with-uuid-batch", `{"uuid":["u3","u4"]}`)
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, float64(1), r.Body["createdCount"])
	requireError(t, a.asGame(g, "POST", "/player/create-with-bulk-uuids", `{"uuids":[]}`), 400, "VALIDATION_FAILED")
}

func TestCoinsDistributeDeductAndHistory(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Coins")
	bearer := "Bearer " + a.federatedToken(g, "p-coins")
	path := "/coins/" + g.coinID

	r := a.asGame(g, "POST", path+"/distribute", `{"amount":100,"referenceId":"match-1","metadata":{"level":3}}`, "Authorization", bearer)
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, "CREDIT", r.Body["type"])
	require.Equal(t, float64(100), r.Body["balance"])
	require.Equal(t, "GAME_CREDIT", r.Body["reason"])
	require.Equal(t, "p-coins", r.Body["uuid"])

	r = a.asGame(g, "POST", path+"/deduct", `{"amount":30,"reason":"SHOP"}`, "Authorization", bearer)
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, float64(70), r.Body["balance"])
	requireError(t, a.asGame(g, "POST", path+"/deduct", `{"amount":71}`, "Authorization", bearer), 400, "INSUFFICIENT_BALANCE")
	requireError(t, a.asGame(g, "POST", path+"/deduct", `{"amount":0}`, "Authorization", bearer), 400, "VALIDATION_FAILED")
	requireError(t, a.asGame(g, "POST", path+"/distribute", `{"amount":1,"reason":"lower case"}`, "Authorization", bearer), 400, "VALIDATION_FAILED")
	requireError(t, a.asGame(g, "POST", path+"/distribute", `{"amount":1,"owner":"me"}`, "Authorization", bearer), 400, "VALIDATION_FAILED")

	other := a.newGame("Other")
	requireError(t, a.asGame(g, "POST", "/coins/"+other.coinID+"/distribute", `{"amount":1}`, "Authorization", bearer), 404, "COIN_NOT_FOUND")
	// Ids in paths are opaque to clients: a malformed one is as unknown as any other.
	requireError(t, a.asGame(g, "POST", "/coins/no-such-coin/distribute", `{"amount":1}`, "Authorization", bearer), 404, "COIN_NOT_FOUND")
	requireError(t, a.asGame(g, "GET", "/player/coins-history?coinId=no-such-coin", "", "Authorization", bearer), 404, "COIN_NOT_FOUND")

	f := a.asGame(g, "GET", "/player/funds", "", "Authorization", bearer)
	require.Equal(t, 200, f.Status, string(f.Raw))
	require.JSONEq(t, fmt.Sprintf(`[{"coinId":"%s","coinName":"Gems","coinImageUrl":"https://cdn.example.com/gem.png","balance":70,"lifetimeEarned":100,"lifetimeSpent":30}]`, g.coinID), string(f.Raw))

	requireError(t, a.asGame(g, "GET", "/player/transactions", "", "Authorization", bearer), 400, "VALIDATION_FAILED")
	tx := a.asGame(g, "GET", "/player/transactions?limit=1&page=2", "", "Authorization", bearer, "x-language", "en")
	require.Equal(t, 200, tx.Status, string(tx.Raw))
	require.Equal(t, float64(2), tx.Body["total"])
	items := tx.Body["items"].([]any)
	require.Len(t, items, 1)
	require.Equal(t, "CREDIT", items[0].(map[string]any)["type"], "newest first: page 2 holds the credit")

	h := a.asGame(g, "GET", "/player/coins-history", "", "Authorization", bearer)
	require.Equal(t, 200, h.Status, string(h.Raw))
	sum := h.Body["summary"].(map[string]any)
	require.Equal(t, float64(70), sum["currentBalance"])
	require.Equal(t, float64(100), sum["lifetimeEarning"])
	require.Equal(t, float64(30), sum["lifetimeSpends"])
	require.Equal(t, float64(0), sum["savings"])
}

func TestIdempotentDistributeOverHTTP(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Idem")
	bearer := "Bearer " + a.federatedToken(g, "p-idem")
	path := "/coins/" + g.coinID + "/distribute"
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = a.asGame(g, "POST", path, `{"amount":40}`, "Authorization", bearer, "x-idempotency-key", "k-1").Status
		}(i)
	}
	wg.Wait()
	for _, s := range statuses {
		require.Contains(t, []int{201, 409}, s)
	}
	r := a.asGame(g, "POST", path, `{"amount":40}`, "Authorization", bearer, "x-idempotency-key", "k-1")
	require.Equal(t, 201, r.Status)
	require.Equal(t, "true", r.Header.Get("x-idempotent-replay"))
	require.Equal(t, float64(40), r.Body["balance"])
	requireError(t, a.asGame(g, "POST", path, `{"amount":41}`, "Authorization", bearer, "x-idempotency-key", "k-1"), 422, "IDEMPOTENCY_KEY_REUSED")
	f := a.asGame(g, "GET", "/player/funds", "", "Authorization", bearer)
	require.Contains(t, string(f.Raw), `"balance":40`)
	fresh := a.asGame(g, "POST", path, `{"amount":1}`, "Authorization", bearer)
	require.Empty(t, fresh.Header.Get("x-idempotent-replay"))
}

func TestProfilesAndPictures(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Profile")
	bearer := "Bearer " + a.federatedToken(g, "p-prof")

	r := a.asGame(g, "PUT", "/player", `{"name":"Asha","email":"asha@example.com"}`, "Authorization", bearer)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, "Asha", r.Body["name"])
	requireError(t, a.asGame(g, "PUT", "/player", `{"email":"not-an-email"}`, "Authorization", bearer), 400, "VALIDATION_FAILED")

	r = a.asGame(g, "PATCH", "/player/gcommerce/profile", `{"phone":"+919812345678","addresses":[{"line1":"12 MG Road","city":"Bengaluru","state":"karnataka","pinCode":"560001","isDefault":true}]}`, "Authorization", bearer)
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, "Karnataka", r.Body["addresses"].([]any)[0].(map[string]any)["state"], "state normalised")
	requireError(t, a.asGame(g, "PATCH", "/player/gcommerce/profile", `{"addresses":[{"line1":"x","city":"y","state":"Karnataka","pinCode":"012345"}]}`, "Authorization", bearer), 400, "VALIDATION_FAILED")
	requireError(t, a.asGame(g, "PATCH", "/player/gcommerce/profile", `{"addresses":[{"line1":"x","city":"y","state":"Texas","pinCode":"560001"}]}`, "Authorization", bearer), 400, "VALIDATION_FAILED")

	uploadAs := func(part string, data []byte) response {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile(part, "pic.png")
		_, _ = fw.Write(data)
		_ = mw.Close()
		req, _ := http.NewRequest("POST", a.srv.URL+"/player/gcommerce/profile/upload", &buf)
		req.Host = "localhost"
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("x-api-key", g.testKey)
		req.Header.Set("Authorization", bearer)
		return a.send(req)
	}
	upload := func(data []byte) response { return uploadAs("file", data) }
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{1}, 100)...)
	r = upload(png)
	require.Equal(t, 201, r.Status, string(r.Raw))
	url := r.Body["profilePictureUrl"].(string)
	got := a.do("GET", url, "", nil, "")
	require.Equal(t, 200, got.Status)
	require.Equal(t, "image/png", got.Header.Get("Content-Type"))
	require.Equal(t, png, got.Raw)
	requireError(t, upload([]byte("GIF89a not allowed")), 400, "VALIDATION_FAILED")
	r = uploadAs("picture", png)
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Equal(t, "body.file", r.Body["details"].([]any)[0].(map[string]any)["location"], "the part must be named file")
	r = upload(append([]byte("\xFF\xD8\xFF"), make([]byte, 5<<20)...))
	requireError(t, r, 400, "VALIDATION_FAILED")
	require.Contains(t, r.Body["message"], "5 MB")
	requireError(t, upload(append([]byte("\xFF\xD8\xFF"), make([]byte, 9<<20)...)), 413, "BODY_TOO_LARGE")
}

func TestStoreSettingsAndTheme(t *testing.T) {
	t.Parallel()
	a := setup(t)
	g := a.newGame("Store")
	r := a.asGame(g, "GET", "/player/store-settings", "")
	require.JSONEq(t, `{"rewardsEnabled":true,"gcommerceEnabled":false,"defaultLandingPage":"rewards"}`, string(r.Raw))
	r = a.admin("PUT", "/admin/v1/games/"+g.id+"/store-settings", `{"gcommerceEnabled":true}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	r = a.admin("PUT", "/admin/v1/games/"+g.id+"/store-theme", `{"primaryColor":"#ff0066","logo":"https://x.example/l.png"}`)
	require.Equal(t, 200, r.Status, string(r.Raw))
	r = a.asGame(g, "GET", "/player/store-settings", "")
	require.JSONEq(t, `{"rewardsEnabled":true,"gcommerceEnabled":true,"defaultLandingPage":"rewards"}`, string(r.Raw))
	r = a.asGame(g, "GET", "/player/store-theme-config", "")
	require.JSONEq(t, `{"primaryColor":"#ff0066","logo":"https://x.example/l.png"}`, string(r.Raw))
	r = a.asGame(g, "GET", "/player/game", "")
	require.Equal(t, 200, r.Status, string(r.Raw))
	require.Equal(t, "test", r.Body["environment"])
	require.Len(t, r.Body["coins"], 1)
}
