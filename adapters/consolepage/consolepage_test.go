package consolepage_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/consolepage"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/members/membersfake"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
	"github.com/rewardsco/rewards/core/touchpoints"
)

// auditRepo keeps entries in memory.
type auditRepo struct {
	mu      sync.Mutex
	entries []audit.Entry
}

func (a *auditRepo) Append(_ context.Context, e audit.Entry) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	e.ID, e.At = uuid.New(), time.Now()
	a.entries = append(a.entries, e)
	return nil
}

func (a *auditRepo) List(_ context.Context, f audit.Filter) ([]audit.Entry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []audit.Entry
	for i := len(a.entries) - 1; i >= 0; i-- {
		if e := a.entries[i]; e.StudioID == f.StudioID {
			out = append(out, e)
		}
	}
	return out, nil
}

// outbox keeps the mail sent.
type outbox struct {
	mu   sync.Mutex
	sent []mail.Message
}

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.sent = append(o.sent, m)
	return nil
}

// consoleRepo is the console's storage: no key hints kept; placements deleted from tp.
type consoleRepo struct {
	console.Repo
	tp *placements
}

func (r consoleRepo) DeletePlacement(_ context.Context, _ uuid.UUID, env studio.Environment, id uuid.UUID) error {
	r.tp.mu.Lock()
	defer r.tp.mu.Unlock()
	delete(r.tp.m, placementKey(id, env))
	return nil
}

func (consoleRepo) Credentials(context.Context, uuid.UUID) ([]console.Credentials, error) {
	return nil, nil
}

// partners answers every game's partner terms as off.
type partners struct{ console.Partner }

func (partners) GetSettings(_ context.Context, gameID uuid.UUID) (partner.Settings, error) {
	return partner.Settings{GameID: gameID}, nil
}

// placements keeps placements in memory, as touchpoints.Service keeps them (without its
// checks of the catalogue), and copies test to live on Promote.
type placements struct {
	console.Touchpoints
	mu sync.Mutex
	m  map[uuid.UUID]touchpoints.Placement // by id and environment: id ^ env
}

func placementKey(id uuid.UUID, env studio.Environment) uuid.UUID {
	k := id
	if env == studio.Live {
		k[0] ^= 0xff
	}
	return k
}

func (p *placements) Placements(_ context.Context, gameID uuid.UUID, env studio.Environment) ([]touchpoints.Placement, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []touchpoints.Placement
	for _, pl := range p.m {
		if pl.GameID == gameID && pl.Environment == env {
			out = append(out, pl)
		}
	}
	slices.SortFunc(out, func(a, b touchpoints.Placement) int { return strings.Compare(a.ID.String(), b.ID.String()) })
	return out, nil
}

func (p *placements) PutPlacement(_ context.Context, pl touchpoints.Placement) (touchpoints.Placement, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !pl.Type.Valid() {
		return pl, false, errs.Invalidf("type must be product, coupon or gift-card")
	}
	k := placementKey(pl.ID, pl.Environment)
	_, existed := p.m[k]
	pl.UpdatedAt = time.Now()
	p.m[k] = pl
	return pl, !existed, nil
}

func (p *placements) PromoteChecked(ctx context.Context, gameID uuid.UUID, version string) (touchpoints.Diff, error) {
	test, _ := p.Placements(ctx, gameID, studio.Test)
	live, _ := p.Placements(ctx, gameID, studio.Live)
	d := touchpoints.DiffPlacements(test, live)
	if version != "" && version != d.Version {
		return touchpoints.Diff{}, touchpoints.ErrPromoteChanged
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range live {
		delete(p.m, placementKey(l.ID, studio.Live))
	}
	for _, t := range test {
		t.Environment = studio.Live
		p.m[placementKey(t.ID, studio.Live)] = t
	}
	return d, nil
}

// bundle is a console over the real members and studio services on in-memory storage.
type bundle struct {
	srv     *httptest.Server
	members *members.Service
	studios *studio.Service
	audit   *auditRepo
	mail    *outbox
	studio  studio.Studio
	game    studio.NewGame
}

const password = "correct horse battery staple"

func setup(t *testing.T) *bundle {
	t.Helper()
	runner := &memstore.Runner{}
	ar := &auditRepo{}
	log := audit.New(runner, memstore.New[audit.Repo](runner, ar))
	box := &outbox{}
	ms := members.NewService(runner, memstore.New[members.Repo](runner, membersfake.New()), log,
		members.Config{Mail: box, PublicURL: "http://console.test"})
	ss := studio.NewService(memstore.New[studio.Repo](runner, studiofake.New()), log)
	tp := &placements{m: map[uuid.UUID]touchpoints.Placement{}}
	cs := console.New(console.Deps{Studio: ss, Partner: partners{}, Touchpoints: tp, Audit: log,
		Store: memstore.New[console.Repo](runner, consoleRepo{tp: tp})})
	// Mounted as app mounts it: on the service's chi router, beside other routes.
	root := chi.NewRouter()
	root.Get("/store", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "the store") })
	consolepage.New(consolepage.Config{Console: cs, Members: ms, PublicURL: "http://console.test"}).Routes(root)
	srv := httptest.NewServer(root)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	st, err := ss.CreateStudio(ctx, "Acme Games")
	require.NoError(t, err)
	g, err := ss.CreateGame(ctx, studio.Game{StudioID: st.ID, Name: "Space Miner"})
	require.NoError(t, err)
	return &bundle{srv: srv, members: ms, studios: ss, audit: ar, mail: box, studio: st, game: g}
}

// member makes an ACTIVE member of the studio with role: invited by the operator, accepted.
func (b *bundle) member(t *testing.T, role members.Role) string {
	t.Helper()
	ctx := context.Background()
	email := strings.ToLower(string(role)) + "-" + uuid.NewString()[:8] + "@acme.example"
	inv, err := b.members.Invite(ctx, b.studio.ID, nil, email, role)
	require.NoError(t, err)
	token := inv.URL[strings.LastIndex(inv.URL, "/")+1:]
	_, err = b.members.AcceptInvite(ctx, token, "Sam", password)
	require.NoError(t, err)
	return email
}

// link returns the path of the last link to the console mailed to email.
func (b *bundle) link(t *testing.T, email string) string {
	t.Helper()
	b.mail.mu.Lock()
	defer b.mail.mu.Unlock()
	for i := len(b.mail.sent) - 1; i >= 0; i-- {
		if m := b.mail.sent[i]; m.To == email {
			u := regexp.MustCompile(`http://console\.test(/console/\S+)`).FindStringSubmatch(m.Text)
			require.Len(t, u, 2, m.Text)
			return u[1]
		}
	}
	t.Fatalf("no mail to %s", email)
	return ""
}

// client is a browser without redirects followed, with its own cookies: cookie is the
// session's, others the rest (the flash message's).
type client struct {
	t      *testing.T
	base   string
	cookie string
	others map[string]string
}

type answer struct {
	status int
	header http.Header
	body   string
}

func (c *client) do(method, path string, form url.Values, header map[string]string) answer {
	c.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, c.base+path, body)
	require.NoError(c.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if c.cookie != "" {
		req.AddCookie(&http.Cookie{Name: "rewards_console", Value: c.cookie})
	}
	for k, v := range c.others {
		req.AddCookie(&http.Cookie{Name: k, Value: v})
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	require.NoError(c.t, err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	require.NoError(c.t, err)
	for _, ck := range res.Cookies() {
		switch {
		case ck.Name == "rewards_console":
			c.cookie = ck.Value
		case ck.MaxAge < 0:
			delete(c.others, ck.Name)
		default:
			if c.others == nil {
				c.others = map[string]string{}
			}
			c.others[ck.Name] = ck.Value
		}
	}
	return answer{status: res.StatusCode, header: res.Header, body: string(b)}
}

func (c *client) get(path string) answer { return c.do(http.MethodGet, path, nil, nil) }
func (c *client) post(path string, form url.Values) answer {
	if form == nil {
		form = url.Values{}
	}
	return c.do(http.MethodPost, path, form, nil)
}

// signIn signs in as email and returns the browser.
func (b *bundle) signIn(t *testing.T, email string) *client {
	t.Helper()
	c := &client{t: t, base: b.srv.URL}
	a := c.post("/console/sign-in", url.Values{"email": {email}, "password": {password}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Equal(t, "/console/games", a.header.Get("Location"))
	require.NotEmpty(t, c.cookie)
	return c
}

// An unknown email and a wrong password get the same page: status, headers that matter, body
// (once the email typed is taken out), and no cookie.
func TestSignInFailuresLookAlike(t *testing.T) {
	t.Parallel()
	b := setup(t)
	known := b.member(t, members.Owner)
	unknown := "nobody-" + uuid.NewString()[:8] + "@acme.example"

	try := func(email, pw string) answer {
		c := &client{t: t, base: b.srv.URL}
		a := c.post("/console/sign-in", url.Values{"email": {email}, "password": {pw}})
		require.Empty(t, c.cookie, "a refused sign-in sets no session")
		a.body = strings.ReplaceAll(a.body, email, "EMAIL")
		return a
	}
	wrong := try(known, "not the password at all")
	nobody := try(unknown, "not the password at all")
	require.Equal(t, http.StatusUnauthorized, wrong.status)
	require.Equal(t, wrong.status, nobody.status)
	require.Equal(t, wrong.body, nobody.body)
	require.Equal(t, wrong.header.Get("Content-Type"), nobody.header.Get("Content-Type"))
	require.Contains(t, wrong.body, "The email, password or code is not right.")
	require.Contains(t, wrong.body, `id="email"`)

	// The right password signs in.
	b.signIn(t, known)

	// The sixth failure in 15 minutes is 429 with Retry-After, for a known email and an
	// unknown one alike (the unknown one failed once above; signing in cleared the other's).
	for email, failed := range map[string]int{known: 0, unknown: 1} {
		for i := failed; i < 5; i++ {
			require.Equal(t, http.StatusUnauthorized, try(email, "not the password at all").status)
		}
		a := try(email, "not the password at all")
		require.Equal(t, http.StatusTooManyRequests, a.status)
		require.NotEmpty(t, a.header.Get("Retry-After"))
		require.Contains(t, a.body, "Too many failed sign-ins for this email. Try again in ")
	}
}

// A POST from another site is 403 and does nothing: no session is made, and a signed-in
// member's sessions go on.
func TestCrossSitePostIsRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(t, members.Owner)

	anon := &client{t: t, base: b.srv.URL}
	a := anon.do(http.MethodPost, "/console/sign-in", url.Values{"email": {email}, "password": {password}},
		map[string]string{"Sec-Fetch-Site": "cross-site"})
	require.Equal(t, http.StatusForbidden, a.status)
	require.Empty(t, anon.cookie)
	require.Contains(t, a.body, "sent from another site")

	c := b.signIn(t, email)
	for _, h := range []map[string]string{{"Sec-Fetch-Site": "cross-site"}, {"Origin": "https://evil.example"}} {
		a = c.do(http.MethodPost, "/console/sign-out-everywhere", url.Values{}, h)
		require.Equal(t, http.StatusForbidden, a.status, h)
		a = c.do(http.MethodPost, "/console/games/"+b.game.ID.String()+"/test/keys/rotate", url.Values{}, h)
		require.Equal(t, http.StatusForbidden, a.status, h)
	}
	require.Equal(t, http.StatusOK, c.get("/console/games").status, "the session is still alive")
	_, err := b.studios.Authenticate(context.Background(), b.game.TestKey, studio.Test)
	require.NoError(t, err, "the key was not rotated")

	// The same form from the console itself works.
	a = c.do(http.MethodPost, "/console/sign-out", url.Values{}, map[string]string{"Sec-Fetch-Site": "same-origin"})
	require.Equal(t, http.StatusSeeOther, a.status)
}

// A VIEWER reads every page, sees no change control, and every change it sends anyway is 403
// ROLE_FORBIDDEN in words, with nothing changed.
func TestViewerChangesNothing(t *testing.T) {
	t.Parallel()
	b := setup(t)
	viewer := b.member(t, members.Viewer)
	c := b.signIn(t, viewer)
	game := "/console/games/" + b.game.ID.String()

	for _, path := range []string{"/console/games", game + "/test", game + "/live", game + "/test/keys/rotate", "/console/members",
		"/console/tokens", "/console/audit", "/console/account"} {
		a := c.get(path)
		require.Equal(t, http.StatusOK, a.status, path)
		require.NotContains(t, a.body, `id="issue-server-secret"`, path)
		require.NotContains(t, a.body, `id="invite"`, path)
		require.NotContains(t, a.body, `id="token-create"`, path)
	}
	a := c.get(game + "/test")
	require.Contains(t, a.body, `id="read-only"`)
	require.NotContains(t, a.body, `id="rotate-key"`)
	require.Contains(t, c.get(game+"/test/keys/rotate").body, `id="rotate-confirm" disabled`)

	auditBefore := len(b.audit.entries)
	membersBefore, err := b.members.List(context.Background(), b.studio.ID)
	require.NoError(t, err)
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{game + "/test/keys/rotate", nil},
		{game + "/live/keys/rotate", nil},
		{game + "/test/server-secret", nil},
		{game + "/test/partner-secret", nil},
		{"/console/members", url.Values{"email": {"new@acme.example"}, "role": {"OWNER"}}},
		{"/console/members/" + membersBefore[0].ID.String() + "/role", url.Values{"role": {"VIEWER"}}},
		{"/console/members/" + membersBefore[0].ID.String() + "/remove", nil},
		{"/console/tokens", url.Values{"name": {"ci"}, "role": {"VIEWER"}, "days": {"30"}}},
		{"/console/account/require-totp", url.Values{"required": {"true"}}},
	} {
		a := c.post(tc.path, tc.form)
		require.Equal(t, http.StatusForbidden, a.status, tc.path)
		require.Contains(t, a.body, "Your role (Viewer) lets you read this page but not change it. Nothing was changed.", tc.path)
	}
	for _, env := range []studio.Environment{studio.Test, studio.Live} {
		key := b.game.TestKey
		if env == studio.Live {
			key = b.game.LiveKey
		}
		_, err := b.studios.Authenticate(context.Background(), key, env)
		require.NoError(t, err, "the %s key still works", env)
	}
	membersAfter, err := b.members.List(context.Background(), b.studio.ID)
	require.NoError(t, err)
	require.Equal(t, membersBefore, membersAfter)
	tokens, err := b.members.ListTokens(context.Background(), members.Principal{StudioID: b.studio.ID, Role: members.Owner})
	require.NoError(t, err)
	require.Empty(t, tokens)
	required, err := b.members.TOTPRequired(context.Background(), b.studio.ID)
	require.NoError(t, err)
	require.False(t, required)
	require.Len(t, b.audit.entries, auditBefore, "no change was audited")
}

// A DEVELOPER changes the integration but not the members, nor makes an OWNER token: 403 in
// words that say to ask an owner.
func TestDeveloperLimits(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.signIn(t, b.member(t, members.Developer))
	a := c.get("/console/members")
	require.Equal(t, http.StatusOK, a.status)
	require.NotContains(t, a.body, `id="invite"`)
	require.Contains(t, a.body, `id="read-only"`)
	for _, tc := range []struct {
		path string
		form url.Values
	}{
		{"/console/members", url.Values{"email": {"new@acme.example"}, "role": {"VIEWER"}}},
		{"/console/tokens", url.Values{"name": {"ci"}, "role": {"OWNER"}, "days": {"30"}}},
	} {
		a := c.post(tc.path, tc.form)
		require.Equal(t, http.StatusForbidden, a.status, tc.path)
		require.Contains(t, a.body, "Your role (Developer) may not do this: ask an owner. Nothing was changed.", tc.path)
	}
	a = c.post("/console/tokens", url.Values{"name": {"ci"}, "role": {"DEVELOPER"}, "days": {"30"}})
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `<code id="new-token"`)
	require.Equal(t, http.StatusOK, c.post("/console/games/"+b.game.ID.String()+"/test/server-secret", nil).status)
}

// The owner rotates a key: the new key is shown once (no-store) with a copy button, the old
// one stops working, the page after shows it masked only.
func TestOwnerRotatesKey(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.signIn(t, b.member(t, members.Owner))
	game := "/console/games/" + b.game.ID.String() + "/test"

	a := c.get(game)
	require.Contains(t, a.body, `id="rotate-key"`)
	a = c.post(game+"/keys/rotate", nil)
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "no-store", a.header.Get("Cache-Control"))
	m := regexp.MustCompile(`<code id="new-key"[^>]*>([^<]+)</code>`).FindStringSubmatch(a.body)
	require.Len(t, m, 2, a.body)
	newKey := m[1]
	require.Contains(t, a.body, `id="copy"`)
	_, err := b.studios.Authenticate(context.Background(), b.game.TestKey, studio.Test)
	require.Error(t, err, "the old key answers 401")
	_, err = b.studios.Authenticate(context.Background(), newKey, studio.Test)
	require.NoError(t, err)
	require.NotContains(t, c.get(game).body, newKey, "the key is shown once")
}

// A session cookie is dead once its session ends: by sign-out, and by sign-out everywhere
// (which ends the member's other sessions too).
func TestSessionEndsWithSignOut(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(t, members.Developer)

	c := b.signIn(t, email)
	old := c.cookie
	a := c.post("/console/sign-out", nil)
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, "/console/sign-in", a.header.Get("Location"))
	require.Empty(t, c.cookie, "the cookie is cleared")
	replay := &client{t: t, base: b.srv.URL, cookie: old}
	a = replay.get("/console/games")
	require.Equal(t, http.StatusSeeOther, a.status, "the old cookie is dead")
	require.True(t, strings.HasPrefix(a.header.Get("Location"), "/console/sign-in"))

	phone, laptop := b.signIn(t, email), b.signIn(t, email)
	require.Equal(t, http.StatusOK, phone.get("/console/games").status)
	laptopCookie := laptop.cookie
	require.Equal(t, http.StatusSeeOther, laptop.post("/console/sign-out-everywhere", nil).status)
	for _, cookie := range []string{phone.cookie, laptopCookie} {
		a = (&client{t: t, base: b.srv.URL, cookie: cookie}).get("/console/games")
		require.Equal(t, http.StatusSeeOther, a.status)
	}
}

// Every page sends the security headers; another studio's game is 404; a stranger is sent to
// sign in.
func TestHeadersAndAccess(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(t, members.Owner)
	c := b.signIn(t, email)

	a := c.get("/console/games")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, "Space Miner")
	require.Equal(t, "text/html; charset=utf-8", a.header.Get("Content-Type"))
	require.Equal(t, "default-src 'self'; img-src 'self' https: data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
		a.header.Get("Content-Security-Policy"))
	require.Equal(t, "nosniff", a.header.Get("X-Content-Type-Options"))
	require.Equal(t, "same-origin", a.header.Get("Referrer-Policy"))
	require.NotContains(t, a.body, "<script>", "no inline script")
	assets := regexp.MustCompile(`(?:href|src)="(/console/assets/[^"]+)"`).FindAllStringSubmatch(a.body, -1)
	require.Len(t, assets, 2, "the stylesheet and the script")
	for _, asset := range assets {
		got := c.get(asset[1])
		require.Equal(t, http.StatusOK, got.status, asset[1])
		require.Equal(t, "public, max-age=31536000, immutable", got.header.Get("Cache-Control"))
		require.Regexp(t, `^(text/css|text/javascript)`, got.header.Get("Content-Type"))
	}
	require.Equal(t, http.StatusNotFound, c.get("/console/assets/console.css").status, "only hashed names are served")

	other, err := b.studios.CreateStudio(context.Background(), "Rival")
	require.NoError(t, err)
	og, err := b.studios.CreateGame(context.Background(), studio.Game{StudioID: other.ID, Name: "Secret Game"})
	require.NoError(t, err)
	for _, path := range []string{"/console/games/" + og.ID.String() + "/test", "/console/games/" + og.ID.String() + "/promote",
		"/console/games/" + uuid.NewString() + "/test", "/console/games/not-a-uuid/test", "/console/games/" + b.game.ID.String() + "/staging"} {
		a := c.get(path)
		require.Equal(t, http.StatusNotFound, a.status, path)
		require.NotContains(t, a.body, "Secret Game", path)
	}
	a = c.post("/console/games/"+og.ID.String()+"/test/keys/rotate", nil)
	require.Equal(t, http.StatusNotFound, a.status)
	_, err = b.studios.Authenticate(context.Background(), og.TestKey, studio.Test)
	require.NoError(t, err)

	require.Equal(t, http.StatusOK, c.do(http.MethodHead, "/console/games", nil, nil).status)
	require.Equal(t, http.StatusMethodNotAllowed, c.get("/console/sign-out").status)
	a = c.post("/console/tokens", url.Values{"name": {"deploy"}, "role": {"OWNER"}, "days": {"0"}})
	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, a.body, `id="problem"`)
	require.Contains(t, a.body, `value="deploy"`, "the form keeps what was typed")

	a = c.get("/console")
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, "/console/games", a.header.Get("Location"))
	require.Equal(t, "the store", c.get("/store").body)

	// After signing in, a member goes on to the console page they asked for, never elsewhere.
	for next, to := range map[string]string{"/console/audit?action=x": "/console/audit?action=x", "//evil.example/console/": "/console/games",
		"https://evil.example/": "/console/games", "/console/sign-in": "/console/games", "/store": "/console/games"} {
		a := (&client{t: t, base: b.srv.URL}).post("/console/sign-in", url.Values{"email": {email}, "password": {password}, "next": {next}})
		require.Equal(t, http.StatusSeeOther, a.status)
		require.Equal(t, to, a.header.Get("Location"), next)
	}

	stranger := &client{t: t, base: b.srv.URL}
	a = stranger.get("/console/games/" + b.game.ID.String() + "/test")
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, "/console/sign-in?next="+url.QueryEscape("/console/games/"+b.game.ID.String()+"/test"), a.header.Get("Location"))
	a = stranger.post("/console/sign-out-everywhere", nil)
	require.Equal(t, http.StatusSeeOther, a.status)
}

// A developer creates and edits a test placement, reads the go-live difference and promotes
// it: live then has it. Live placements have no form; a stale confirm is 409 with the new
// difference.
func TestPlacementsGoLive(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c := b.signIn(t, b.member(t, members.Developer))
	game := "/console/games/" + b.game.ID.String()
	reward := uuid.NewString()

	a := c.get(game + "/test/placements")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `id="placement-form"`)
	require.NotContains(t, c.get(game+"/live/placements").body, `id="placement-form"`)

	form := url.Values{"screen": {"home"}, "type": {"coupon"}, "rewardId": {reward}, "source": {"PRESET"}, "presetId": {"gold-frame"},
		"isActive": {"true"}}
	a = c.post(game+"/test/placements", form)
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	a = c.get(game + "/test/placements")
	require.Contains(t, a.body, "Placement created.")
	m := regexp.MustCompile(`data-placement-id="([0-9a-f-]{36})"`).FindStringSubmatch(a.body)
	require.Len(t, m, 2)
	id := m[1]
	require.Contains(t, c.get(game+"/test/placements/"+id).body, `value="`+reward+`"`)

	bad := url.Values{"screen": {"home"}, "type": {"poster"}, "source": {"PRESET"}, "rewardId": {"not-a-uuid"}}
	a = c.post(game+"/test/placements/"+id, bad)
	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, a.body, "The reward id is a UUID")
	bad.Set("rewardId", "")
	a = c.post(game+"/test/placements/"+id, bad)
	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, a.body, "Type must be product, coupon or gift-card.")

	a = c.post(game+"/live/placements", form)
	require.Equal(t, http.StatusBadRequest, a.status, "live changes only by promoting")

	a = c.get(game + "/promote")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `data-testid="diff-added" data-placement-id="`+id+`"`)
	version := regexp.MustCompile(`name="version" value="([^"]+)"`).FindStringSubmatch(a.body)
	require.Len(t, version, 2)

	// The placement changes after the difference was read: the confirm is refused.
	form.Set("isActive", "")
	require.Equal(t, http.StatusSeeOther, c.post(game+"/test/placements/"+id, form).status)
	a = c.post(game+"/promote", url.Values{"version": {version[1]}})
	require.Equal(t, http.StatusConflict, a.status)
	require.Contains(t, a.body, `id="promote-confirm"`)
	version = regexp.MustCompile(`name="version" value="([^"]+)"`).FindStringSubmatch(a.body)

	a = c.post(game+"/promote", url.Values{"version": {version[1]}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Equal(t, game+"/live/placements", a.header.Get("Location"))
	a = c.get(game + "/live/placements")
	require.Contains(t, a.body, "1 added, 0 changed, 0 removed")
	require.Contains(t, a.body, `data-placement-id="`+id+`"`)
	require.Contains(t, c.get(game+"/promote").body, `id="diff-empty"`)

	require.Equal(t, http.StatusSeeOther, c.post(game+"/test/placements/"+id+"/delete", nil).status)
	require.Contains(t, c.get(game+"/promote").body, `data-testid="diff-removed" data-placement-id="`+id+`"`)
}

// An invitation accepted in the console signs the new member in; its link works once. A
// reset link mailed from the console sets a new password once and ends every session.
func TestInvitationAndReset(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.signIn(t, b.member(t, members.Owner))
	a := owner.post("/console/members", url.Values{"email": {"ada@acme.example"}, "role": {"DEVELOPER"}})
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "no-store", a.header.Get("Cache-Control"))
	invite := b.link(t, "ada@acme.example")
	require.Contains(t, a.body, `<code id="invite-url">http://console.test`+invite+`</code>`)

	ada := &client{t: t, base: b.srv.URL}
	a = ada.get(invite)
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `id="password2"`)
	a = ada.post(invite, url.Values{"name": {"Ada"}, "password": {password}, "password2": {password + "!"}})
	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, a.body, "The two passwords are not the same.")
	a = ada.post(invite, url.Values{"name": {"Ada"}, "password": {"short"}, "password2": {"short"}})
	require.Equal(t, http.StatusBadRequest, a.status, "core refuses a short password")
	a = ada.post(invite, url.Values{"name": {"Ada"}, "password": {password}, "password2": {password}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Equal(t, "/console/games", a.header.Get("Location"))
	require.Contains(t, ada.get("/console/games").body, "Welcome to your studio&#39;s console.")
	a = (&client{t: t, base: b.srv.URL}).post(invite, url.Values{"name": {"Eve"}, "password": {password}, "password2": {password}})
	require.Equal(t, http.StatusNotFound, a.status, "the link works once")
	require.Contains(t, a.body, "This link is not valid any more")

	// Reset: the page says the same for a member and a stranger.
	anon := &client{t: t, base: b.srv.URL}
	sent := anon.post("/console/reset", url.Values{"email": {"ada@acme.example"}})
	none := anon.post("/console/reset", url.Values{"email": {"nobody@acme.example"}})
	require.Equal(t, http.StatusOK, sent.status)
	require.Equal(t, sent.body, none.body)
	reset := b.link(t, "ada@acme.example")
	require.True(t, strings.HasPrefix(reset, "/console/reset/"))
	const fresh = "a new and longer passphrase"
	a = anon.post(reset, url.Values{"password": {fresh}, "password2": {fresh}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Equal(t, http.StatusSeeOther, ada.get("/console/games").status, "the reset ended Ada's session")
	a = anon.post(reset, url.Values{"password": {fresh}, "password2": {fresh}})
	require.Equal(t, http.StatusNotFound, a.status, "the link works once")
	a = anon.post("/console/sign-in", url.Values{"email": {"ada@acme.example"}, "password": {fresh}})
	require.Equal(t, http.StatusSeeOther, a.status)
}

// A member sets up TOTP in the console (secret, otpauth address and QR code shown once) and
// sign-in then needs a code. When an owner requires TOTP, a member without it sees only the
// setup page until they set it up.
func TestTOTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(t, members.Owner)
	c := b.signIn(t, email)

	a := c.post("/console/totp/begin", nil)
	require.Equal(t, http.StatusOK, a.status)
	require.Equal(t, "no-store", a.header.Get("Cache-Control"))
	require.Contains(t, a.body, `id="totp-qr" src="data:image/png;base64,`)
	require.Contains(t, a.body, `otpauth://totp/`)
	secret := regexp.MustCompile(`<code id="totp-secret"[^>]*>([A-Z2-7]+)</code>`).FindStringSubmatch(a.body)
	require.Len(t, secret, 2)
	a = c.post("/console/totp/confirm", url.Values{"code": {"000000"}})
	require.Equal(t, http.StatusBadRequest, a.status)
	require.Contains(t, a.body, "That code is not right.")
	code, err := totp.GenerateCode(secret[1], time.Now())
	require.NoError(t, err)
	a = c.post("/console/totp/confirm", url.Values{"code": {code}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)
	require.Contains(t, c.get("/console/account").body, `<dd id="totp-status">On</dd>`)

	anon := &client{t: t, base: b.srv.URL}
	a = anon.post("/console/sign-in", url.Values{"email": {email}, "password": {password}})
	require.Equal(t, http.StatusUnauthorized, a.status, "a code is needed now")
	a = anon.post("/console/sign-in", url.Values{"email": {email}, "password": {password}, "otp": {code}})
	require.Equal(t, http.StatusSeeOther, a.status, a.body)

	// The owner requires TOTP: a developer without it is sent to set it up.
	dev := b.signIn(t, b.member(t, members.Developer))
	require.Equal(t, http.StatusSeeOther, c.post("/console/account/require-totp", url.Values{"required": {"true"}}).status)
	time.Sleep(1100 * time.Millisecond) // Authenticate may cache a session for a second
	a = dev.get("/console/games")
	require.Equal(t, http.StatusSeeOther, a.status)
	require.Equal(t, "/console/totp", a.header.Get("Location"))
	require.Equal(t, http.StatusOK, dev.get("/console/totp").status)
	require.Equal(t, http.StatusOK, dev.get("/console/account").status)
}
