package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"
)

// mailEnv sends the service's email to the fake mail server that runs in the fakes container
// (fakes/smtp), whose inbox the suites read at /smtp/messages.
var mailEnv = map[string]string{
	"REWARDS_SMTP_URL":  "smtp://fakes:2525",
	"REWARDS_MAIL_FROM": "Rewards <no-reply@rewards.example.com>",
}

// email is one message in the fake mail server's inbox.
type email struct {
	To         string    `json:"to"`
	From       string    `json:"from"`
	Subject    string    `json:"subject"`
	Text       string    `json:"text"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// inbox returns the messages sent to the address, newest first.
func (s *stack) inbox(t *testing.T, to string) []email {
	t.Helper()
	res, err := http.Get(s.fakes.BaseURL + "/smtp/messages?to=" + url.QueryEscape(to))
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	var out []email
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return out
}

var inviteLink = regexp.MustCompile(`https?://\S+/console/invite/[A-Za-z0-9_\-]+`)

// invitation waits for the invitation emailed to the address and returns its link.
func (s *stack) invitation(t *testing.T, to string) string {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, m := range s.inbox(t, to) {
			if l := inviteLink.FindString(m.Text); l != "" {
				require.Equal(t, "no-reply@rewards.example.com", m.From)
				require.NotEmpty(t, m.Subject)
				return l
			}
		}
	}
	t.Fatalf("no invitation emailed to %s within 15s", to)
	return ""
}

// maskTail is what a masked key shows of its end: "a1b2" of "rk_test_…a1b2", "" of a key
// issued before the console kept hints ("rk_test_…").
func maskTail(t *testing.T, masked string) string {
	t.Helper()
	_, tail, ok := strings.Cut(masked, "…")
	require.True(t, ok, "a masked key: %q", masked)
	return tail
}

// TestConsoleInABrowser runs a studio from the console in Chromium, as its people would: the
// operator invites the first owner, who accepts from the email, turns on TOTP and signs in with
// it, invites a VIEWER, rotates the test key (shown once; the old key answers 401), issues a
// partner secret, edits a test placement, reads the go-live difference and promotes it (the
// live key then serves it), resends a failed webhook delivery and finds each of these in the
// audit log. The VIEWER then sees all of it and can change none of it, not even with a form
// posted by hand. A screenshot of each step is kept in the test's artifact directory.
func TestConsoleInABrowser(t *testing.T) {
	t.Parallel() // each test runs its own stack
	env := map[string]string{"REWARDS_WEBHOOK_ALLOW_HTTP": "true", "REWARDS_WEBHOOK_ALLOW_PRIVATE": "true",
		"REWARDS_WEBHOOK_RETRY_DELAYS": "1s,1s,1s,1s"}
	for k, v := range mailEnv {
		env[k] = v
	}
	s := startStack(t, env)
	tn := s.newTenant("Console Studio")
	const (
		ownerEmail  = "owner@console-studio.example.com"
		viewerEmail = "viewer@console-studio.example.com"
		ownerName   = "Olive Owner"
		password    = "correct horse battery staple"
	)

	// The game as the operator left it: two products, a test placement of the first, promoted.
	for _, sku := range []string{"sku-a", "sku-b"} {
		r := s.admin("PUT", "/admin/v1/catalogue/products/"+sku, map[string]any{"name": "Product " + sku, "brandName": "Acme",
			"category": "Audio", "imageUrl": "https://cdn.example.com/" + sku + ".png", "mrp": 1000, "listingPrice": 900,
			"discountedListingPrice": 800, "maxCoinDiscountPct": 50, "priceUpdatedAt": time.Now().UTC().Format(time.RFC3339), "isActive": true})
		require.Equal(t, 201, r.Status, string(r.Raw))
	}
	placementID := "5c0a7e2d-1b3f-4c5d-8e9f-0a1b2c3d4e5f"
	r := s.admin("PUT", "/admin/v1/games/"+tn.GameID+"/placements/test/"+placementID, map[string]any{"screen": "home", "type": "product",
		"asset": map[string]any{"source": "UPLOAD", "imageUrl": "https://studio.example.com/frame.png", "orientation": "PORTRAIT", "width": 300, "height": 500},
		"item":  map[string]any{"productId": "sku-a"}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, 200, s.admin("POST", "/admin/v1/games/"+tn.GameID+"/placements/promote", nil).Status)
	serveLive := func() response {
		t.Helper()
		return s.call(request{method: "GET", path: "/v2/touchpoints/serve?screen=home&type=product", host: "live.localhost",
			headers: map[string]string{"x-api-key": tn.LiveKey}})
	}
	require.Equal(t, "sku-a", obj(envelope(t, serveLive())["item"])["id"])
	r = s.admin("PUT", "/admin/v1/games/"+tn.GameID+"/partner", map[string]any{"enabled": true, "settlement": "WALLET", "discountPct": 0})
	require.Equal(t, 200, r.Status, string(r.Raw))

	// A test webhook configuration whose receiver answers 503: the delivery of a distribute
	// fails its five attempts (about 4 s) while the owner signs in.
	channel := strings.ReplaceAll(uuid.NewString(), "-", "")
	r = s.asPlayer(tn, "", "POST", "/studio-webhooks/configure", map[string]any{"webhookUrl": "http://fakes:9090/hooks/" + channel,
		"subscribedEvents": []string{"COINS_CREDITED"}, "environment": "DEVELOPMENT"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	s.behaviour(t, fmt.Sprintf(`{"channel":%q,"status":503}`, channel))
	require.Equal(t, 201, s.asPlayer(tn, "", "POST", "/player/create-with-uuid", map[string]any{"uuid": "console-player"}).Status)
	playerToken := str(s.asPlayer(tn, "", "POST", "/player/login/federatedByStudio", map[string]any{"uuid": "console-player"}).Body["access_token"])
	r = s.asPlayer(tn, playerToken, "POST", "/coins/"+tn.CoinID+"/distribute", map[string]any{"amount": 10})
	require.Equal(t, 201, r.Status, string(r.Raw))

	// The operator invites the first owner; the invitation is emailed.
	r = s.admin("POST", "/admin/v1/studios/"+tn.StudioID+"/members", map[string]any{"email": ownerEmail, "role": "OWNER"})
	require.Equal(t, 201, r.Status, string(r.Raw))
	require.Equal(t, "INVITED", r.Body["status"])
	require.Equal(t, "OWNER", r.Body["role"])
	ownerLink := s.invitation(t, ownerEmail)
	require.Equal(t, str(r.Body["inviteUrl"]), ownerLink, "the email carries the link the operator was given")

	b := newBrowser(t, s)
	page := func(path string) string { return s.svc.BaseURL + path }
	game := "/console/games/" + tn.GameID

	// The owner opens the link from the email, names themself and chooses a password.
	b.do("open the invitation", chromedp.Navigate(page(pathOf(t, ownerLink))), chromedp.WaitVisible(`#invite-form`))
	b.shot("owner-invitation")
	b.do("accept it", chromedp.SendKeys(`#name`, ownerName), chromedp.SendKeys(`#password`, password),
		chromedp.SendKeys(`#password2`, password), chromedp.Click(`#accept`), chromedp.WaitVisible(`#games`))
	require.Equal(t, ownerEmail, b.text(`#me`))
	require.Equal(t, "OWNER", b.attr(`#my-role`, "data-role"))
	require.Contains(t, b.text(`#games`), "Console Studio Game")
	b.shot("owner-games")

	// TOTP: the page shows the secret once; a code computed from it turns TOTP on.
	b.do("open TOTP", chromedp.Navigate(page("/console/totp")), chromedp.WaitVisible(`#totp-begin`))
	b.do("begin", chromedp.Click(`#totp-begin`), chromedp.WaitVisible(`#totp-secret`))
	secret := b.text(`#totp-secret`)
	require.Regexp(t, `^[A-Z2-7]{16,}=*$`, secret)
	require.Contains(t, b.text(`#totp-url`), "otpauth://totp/")
	b.shot("totp-setup")
	code := func() string {
		c, err := totp.GenerateCode(secret, time.Now())
		require.NoError(t, err)
		return c
	}
	b.do("confirm", chromedp.SendKeys(`#totp-code`, code()), chromedp.Click(`#totp-confirm`), chromedp.WaitVisible(`#totp-status`))
	require.Equal(t, "On", b.text(`#totp-status`))
	b.shot("totp-on")

	// Signed out, the password alone no longer signs in; with a code it does.
	b.do("sign out", chromedp.Click(`#sign-out`), chromedp.WaitVisible(`#sign-in-form`))
	b.do("sign in without a code", chromedp.SendKeys(`#email`, ownerEmail), chromedp.SendKeys(`#password`, password),
		chromedp.Click(`#sign-in`), chromedp.WaitVisible(`#problem`))
	b.shot("sign-in-needs-code")
	b.do("sign in with a code", chromedp.SetValue(`#email`, ownerEmail), chromedp.SetValue(`#password`, password),
		chromedp.SetValue(`#otp`, code()), chromedp.Click(`#sign-in`), chromedp.WaitVisible(`#games`))
	require.Equal(t, ownerEmail, b.text(`#me`))

	// The owner invites a VIEWER; the link is shown and emailed.
	b.do("open members", chromedp.Navigate(page("/console/members")), chromedp.WaitVisible(`#invite-member-form`))
	b.do("invite the viewer", chromedp.SendKeys(`#invite-email`, viewerEmail), chromedp.SetValue(`#invite-role`, "VIEWER"),
		chromedp.Click(`#invite`), chromedp.WaitVisible(`#invited`))
	require.Equal(t, viewerEmail, b.text(`#invited-email`))
	viewerLink := s.invitation(t, viewerEmail)
	require.Equal(t, viewerLink, b.text(`#invite-url`))
	require.Equal(t, "VIEWER", b.text(`tr[data-email="`+viewerEmail+`"] .member-role`))
	b.shot("viewer-invited")

	// Rotate the test key: the new key is shown once; the old one answers 401 at once.
	serveTest := func(key string) response {
		t.Helper()
		return s.call(request{method: "GET", path: "/v2/touchpoints/serve?screen=home&type=product", headers: map[string]string{"x-api-key": key}})
	}
	require.Equal(t, 200, serveTest(tn.TestKey).Status)
	b.do("open the test keys", chromedp.Navigate(page(game+"/test")), chromedp.WaitVisible(`#api-key-masked`))
	masked := b.text(`#api-key-masked`)
	require.True(t, strings.HasPrefix(masked, "rk_test_…") && strings.HasSuffix(tn.TestKey, maskTail(t, masked)), "masked: %s", masked)
	b.do("ask to rotate", chromedp.Click(`#rotate-key`), chromedp.WaitVisible(`#rotate-confirm`))
	b.shot("rotate-confirm")
	b.do("rotate", chromedp.Click(`#rotate-confirm`), chromedp.WaitVisible(`#new-key`))
	newKey := b.text(`#new-key`)
	require.Regexp(t, `^rk_test_`, newKey)
	require.NotEqual(t, tn.TestKey, newKey)
	b.shot("new-key")
	requireError(t, serveTest(tn.TestKey), 401, "API_KEY_REVOKED")
	require.Equal(t, 200, serveTest(newKey).Status)
	b.do("back to the keys", chromedp.Click(`#done`), chromedp.WaitVisible(`#api-key-masked`))
	require.NotContains(t, b.html(), newKey, "shown once: the keys page masks it")
	tail := maskTail(t, b.text(`#api-key-masked`))
	require.True(t, len(tail) >= 4 && strings.HasSuffix(newKey, tail), "the new key, masked: %s", b.text(`#api-key-masked`))

	// A partner client secret, shown once; the token exchange takes it.
	b.do("issue a partner secret", chromedp.Click(`#issue-partner-secret`), chromedp.WaitVisible(`#new-secret`))
	partnerSecret := b.text(`#new-secret`)
	require.NotEmpty(t, partnerSecret)
	b.shot("partner-secret")
	r = s.call(request{method: "POST", path: "/partner/v1/token", body: map[string]any{"client_id": newKey, "client_secret": partnerSecret}})
	require.Equal(t, 200, r.Status, string(r.Raw))
	r = s.call(request{method: "POST", path: "/partner/v1/token", body: map[string]any{"client_id": newKey, "client_secret": partnerSecret + "x"}})
	require.NotEqual(t, 200, r.Status, string(r.Raw))

	// Edit the test placement: the second product.
	b.do("open test placements", chromedp.Navigate(page(game+"/test/placements")), chromedp.WaitVisible(`#placements`))
	b.do("edit the placement", chromedp.Click(`#edit-`+placementID), chromedp.WaitVisible(`#placement-form`))
	b.do("change its product", chromedp.SetValue(`#productId`, "sku-b"), chromedp.Click(`#placement-save`),
		chromedp.WaitVisible(`#flash`))
	require.Contains(t, b.text(`#p-`+placementID), "sku-b")
	b.shot("placement-edited")

	// The go-live difference names the change; promoting it makes the live key serve it.
	b.do("open go-live", chromedp.Navigate(page(game+"/promote")), chromedp.WaitVisible(`#diff`))
	require.Equal(t, 1, b.count(`[data-testid="diff-changed"][data-placement-id="`+placementID+`"]`))
	require.Contains(t, b.text(`[data-testid="diff-changed"]`), "productId", "the difference names the field")
	require.Equal(t, 0, b.count(`[data-testid="diff-added"], [data-testid="diff-removed"]`))
	b.shot("go-live-difference")
	require.Equal(t, "sku-a", obj(envelope(t, serveLive())["item"])["id"], "nothing is live before the confirm")
	b.do("promote", chromedp.Click(`#promote-confirm`), chromedp.WaitVisible(`#flash`))
	b.shot("promoted")
	data := envelope(t, serveLive())
	require.Equal(t, placementID, data["placementId"])
	require.Equal(t, "sku-b", obj(data["item"])["id"])

	// The failed delivery, resent once the receiver is back: the same event arrives again.
	deliveries := page(game + "/test/webhooks/deliveries?status=FAILED")
	failed := ""
	for deadline := time.Now().Add(60 * time.Second); failed == "" && time.Now().Before(deadline); time.Sleep(time.Second) {
		b.do("open failed deliveries", chromedp.Navigate(deliveries), chromedp.WaitVisible(`#deliveries-count`))
		failed = b.attr(`tr[data-testid="delivery"][data-status="FAILED"]`, "data-delivery-id")
	}
	require.NotEmpty(t, failed, "a FAILED delivery within 60s")
	b.shot("failed-delivery")
	before := s.received(t, channel)
	require.Len(t, before, 5, "five attempts")
	s.behaviour(t, fmt.Sprintf(`{"channel":%q,"status":200}`, channel))
	b.do("resend", chromedp.Click(`#resend-`+failed), chromedp.WaitVisible(`#flash`))
	require.Contains(t, b.text(`#flash`), "queued again")
	b.shot("resent")
	require.Eventually(t, func() bool {
		got := s.received(t, channel)
		return len(got) == 6 && got[5].AnsweredStatus == 200
	}, 30*time.Second, 200*time.Millisecond)
	got := s.received(t, channel)
	require.Equal(t, before[0].Headers["X-Service-Event-Id"], got[5].Headers["X-Service-Event-Id"], "the same event")

	// Each of these is in the audit log, by the owner.
	b.do("open the audit log", chromedp.Navigate(page("/console/audit")), chromedp.WaitVisible(`#audit`))
	var missing []string
	for _, action := range []string{"member.invite", "member.accept", "totp.enable", "api_key.rotate", "partner_secret.issue",
		"placement.put", "placement.promote", "webhook_delivery.resend"} {
		if b.count(`tr[data-testid="audit-entry"][data-action="`+action+`"]`) == 0 {
			missing = append(missing, action)
		}
	}
	require.Empty(t, missing, "actions missing from the audit log")
	who := b.text(`tr[data-testid="audit-entry"][data-action="api_key.rotate"]`)
	require.True(t, strings.Contains(who, ownerName) || strings.Contains(who, ownerEmail), "the owner rotated: %s", who)
	require.NotContains(t, b.html(), newKey, "no key in the audit log")
	require.NotContains(t, b.html(), partnerSecret, "no secret in the audit log")
	b.shot("audit")
	// The filtered page's field carries the action it filtered by (the page before had none).
	b.do("filter by action", chromedp.SetValue(`#action`, "api_key.rotate"), chromedp.Click(`#audit-filter`),
		chromedp.WaitVisible(`#action[value="api_key.rotate"]`))
	rotations := b.count(`tr[data-testid="audit-entry"]`)
	require.GreaterOrEqual(t, rotations, 1)
	require.Equal(t, rotations, b.count(`tr[data-testid="audit-entry"][data-action="api_key.rotate"]`))
	b.shot("audit-filtered")

	// The VIEWER accepts their invitation and reads everything.
	b.do("owner signs out", chromedp.Navigate(page("/console/games")), chromedp.WaitVisible(`#sign-out`),
		chromedp.Click(`#sign-out`), chromedp.WaitVisible(`#sign-in-form`))
	b.do("viewer opens the invitation", chromedp.Navigate(page(pathOf(t, viewerLink))), chromedp.WaitVisible(`#invite-form`))
	b.do("viewer accepts", chromedp.SendKeys(`#name`, "Vic Viewer"), chromedp.SendKeys(`#password`, password+" 2"),
		chromedp.SendKeys(`#password2`, password+" 2"), chromedp.Click(`#accept`), chromedp.WaitVisible(`#games`))
	require.Equal(t, "VIEWER", b.attr(`#my-role`, "data-role"))
	b.shot("viewer-games")

	b.do("viewer: keys", chromedp.Navigate(page(game+"/test")), chromedp.WaitVisible(`#api-key-masked`))
	require.NotEmpty(t, b.text(`#read-only`))
	require.Zero(t, b.count(`#rotate-key, #issue-server-secret, #issue-partner-secret`), "no change forms")
	b.shot("viewer-keys")
	b.do("viewer: rotate page", chromedp.Navigate(page(game+"/test/keys/rotate")), chromedp.WaitVisible(`#rotate-confirm`))
	require.Equal(t, 1, b.count(`#rotate-confirm:disabled`))
	b.do("viewer: placements", chromedp.Navigate(page(game+"/test/placements")), chromedp.WaitVisible(`#placements`))
	require.Contains(t, b.text(`#p-`+placementID), "sku-b")
	require.Zero(t, b.count(`#placement-form, #edit-`+placementID+`, #delete-`+placementID))
	b.shot("viewer-placements")
	b.do("viewer: go-live", chromedp.Navigate(page(game+"/promote")), chromedp.WaitVisible(`#diff`))
	require.Equal(t, 1, b.count(`#diff-empty`), "live has the test placements")
	require.Zero(t, b.count(`#promote-confirm`))
	b.do("viewer: deliveries", chromedp.Navigate(page(game+"/test/webhooks/deliveries")), chromedp.WaitVisible(`#deliveries`))
	require.GreaterOrEqual(t, b.count(`tr[data-testid="delivery"]`), 2)
	require.Zero(t, b.count(`button[id^="resend-"]`))
	b.shot("viewer-deliveries")
	b.do("viewer: members", chromedp.Navigate(page("/console/members")), chromedp.WaitVisible(`#members`))
	require.Equal(t, 1, b.count(`tr[data-email="`+ownerEmail+`"]`))
	require.Zero(t, b.count(`#invite-member-form, button[id^="change-role-"], button[id^="remove-"]`))
	b.do("viewer: audit", chromedp.Navigate(page("/console/audit?action=api_key.rotate")), chromedp.WaitVisible(`#audit-filters`))
	require.Equal(t, rotations, b.count(`tr[data-testid="audit-entry"]`))
	b.shot("viewer-audit")

	// Forms posted by hand from the console's own pages: each is refused with 403 and changes
	// nothing.
	for _, post := range []struct{ path, form string }{
		{game + "/test/keys/rotate", ""},
		{game + "/test/server-secret", ""},
		{game + "/test/partner-secret", ""},
		{game + "/test/placements/" + placementID, "screen=home&type=product&source=UPLOAD&imageUrl=https%3A%2F%2Fx.example.com%2Fa.png&productId=sku-a&isActive=true"},
		{game + "/promote", "version=x"},
		{game + "/test/webhooks/deliveries/" + failed + "/resend", ""},
		{"/console/members", "email=intruder%40example.com&role=OWNER"},
	} {
		require.Equal(t, 403, b.post(post.path, post.form), post.path)
	}
	require.Equal(t, 200, serveTest(newKey).Status, "the key is as it was")
	require.Equal(t, "sku-b", obj(envelope(t, serveLive())["item"])["id"])
	b.do("viewer: audit again", chromedp.Navigate(page("/console/audit?action=api_key.rotate")), chromedp.WaitVisible(`#audit-filters`))
	require.Equal(t, rotations, b.count(`tr[data-testid="audit-entry"]`), "no rotation by the viewer")
	require.Empty(t, s.inbox(t, "intruder@example.com"))
	t.Logf("%d screenshots in %s", b.step, b.dir)
}

// browser is one headless Chromium and what a test does with its page.
type browser struct {
	t    *testing.T
	ctx  context.Context
	dir  string
	step int
}

func newBrowser(t *testing.T, s *stack) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.NoSandbox, // tests may run as root
		chromedp.Flag("headless", "new"),
		chromedp.WindowSize(1280, 900),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel := context.WithTimeout(bctx, 5*time.Minute)
	t.Cleanup(cancel)
	b := &browser{t: t, ctx: ctx, dir: t.ArtifactDir()}
	t.Cleanup(func() {
		if t.Failed() {
			b.shot("failed")
		}
	})
	return b
}

func (b *browser) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	require.NoError(b.t, chromedp.Do(b.ctx, actions...), what)
}

func (b *browser) text(sel string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Text(sel))
	require.NoError(b.t, err, sel)
	return strings.TrimSpace(v)
}

// attr is an attribute of the first element sel finds, or "" when there is none.
func (b *browser) attr(sel, name string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](fmt.Sprintf(`(document.querySelector(%q)||{getAttribute:()=>""}).getAttribute(%q)||""`, sel, name)))
	require.NoError(b.t, err, sel)
	return v
}

// count is how many elements sel finds now, without waiting.
func (b *browser) count(sel string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
	require.NoError(b.t, err, sel)
	return n
}

func (b *browser) html() string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	require.NoError(b.t, err)
	return v
}

// post sends a form from the page, as a script of the console's own origin would, and returns
// the status of the answer (redirects not followed).
func (b *browser) post(path, form string) int {
	b.t.Helper()
	status, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](fmt.Sprintf(
		`fetch(%q, {method: "POST", body: new URLSearchParams(%q), redirect: "manual", credentials: "same-origin"}).then(r => r.type === "opaqueredirect" ? 303 : r.status)`,
		path, form), chromedp.EvalAwaitPromise))
	require.NoError(b.t, err, path)
	return status
}

func (b *browser) shot(name string) {
	b.t.Helper()
	png, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	b.step++
	if err := os.WriteFile(filepath.Join(b.dir, filepathName(b.step, name)), png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
	}
}

// pathOf is the path of an address the service wrote with its public URL, which the browser
// reaches at the container's published port instead.
func pathOf(t *testing.T, link string) string {
	t.Helper()
	u, err := url.Parse(link)
	require.NoError(t, err)
	return u.RequestURI()
}
