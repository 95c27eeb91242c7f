package studiov1api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/httpapi/contract"
	"github.com/rewardsco/rewards/adapters/httpapi/studiov1api"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/members/membersfake"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

// auditRepo keeps entries in memory, newest first on reading.
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
		if e := a.entries[i]; e.StudioID == f.StudioID && (f.Action == "" || e.Action == f.Action) {
			out = append(out, e)
		}
	}
	return out, nil
}

// outbox keeps the mail sent.
type outbox struct{}

func (outbox) Send(context.Context, mail.Message) error { return nil }

// consoleRepo keeps no credential hints.
type consoleRepo struct{ console.Repo }

func (consoleRepo) Credentials(context.Context, uuid.UUID) ([]console.Credentials, error) {
	return nil, nil
}

// partners answers every game's partner terms as off.
type partners struct{ console.Partner }

func (partners) GetSettings(_ context.Context, gameID uuid.UUID) (partner.Settings, error) {
	return partner.Settings{GameID: gameID}, nil
}

// bundle is the studio API over the real members, console and studio services on in-memory
// storage, every answer checked against the studio API's own document.
type bundle struct {
	t       *testing.T
	srv     *httptest.Server
	client  *http.Client
	members *members.Service
	studios *studio.Service
	audit   *auditRepo
	studio  studio.Studio
	game    studio.NewGame
}

const password = "correct horse battery staple"

func setup(t *testing.T) *bundle {
	t.Helper()
	runner := &memstore.Runner{}
	ar := &auditRepo{}
	log := audit.New(runner, memstore.New[audit.Repo](runner, ar))
	ms := members.NewService(runner, memstore.New[members.Repo](runner, membersfake.New()), log,
		members.Config{Mail: outbox{}, PublicURL: "http://studio.test"})
	ss := studio.NewService(memstore.New[studio.Repo](runner, studiofake.New()), log)
	cs := console.New(console.Deps{Studio: ss, Partner: partners{}, Audit: log, Store: memstore.New[console.Repo](runner, consoleRepo{})})
	s := httpapi.New(httpapi.Config{AdminToken: "operator-token-operator-token-0000"})
	studiov1api.Register(s, studiov1api.Deps{Members: ms, Console: cs})
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)

	docs := map[string][]byte{}
	for _, path := range []string{"/studio/v1/openapi.json", "/studio/v1/openapi-3.0.json"} {
		res, err := srv.Client().Get(srv.URL + path)
		require.NoError(t, err)
		raw, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, path)
		docs[path] = raw
	}
	checker, err := contract.Load(context.Background(), docs)
	require.NoError(t, err, "the studio API's documents are valid OpenAPI documents")

	ctx := context.Background()
	st, err := ss.CreateStudio(ctx, "Acme Games")
	require.NoError(t, err)
	g, err := ss.CreateGame(ctx, studio.Game{StudioID: st.ID, Name: "Space Miner"})
	require.NoError(t, err)
	return &bundle{t: t, srv: srv, client: &http.Client{Transport: checker.Transport(t, nil)},
		members: ms, studios: ss, audit: ar, studio: st, game: g}
}

// member makes an ACTIVE member of studioID with role and returns its email.
func (b *bundle) member(studioID uuid.UUID, role members.Role) string {
	b.t.Helper()
	ctx := context.Background()
	email := strings.ToLower(string(role)) + "-" + uuid.NewString()[:8] + "@acme.example"
	inv, err := b.members.Invite(ctx, studioID, nil, email, role)
	require.NoError(b.t, err)
	_, err = b.members.AcceptInvite(ctx, inv.URL[strings.LastIndex(inv.URL, "/")+1:], "Sam", password)
	require.NoError(b.t, err)
	return email
}

type answer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (b *bundle) call(method, path, token string, body any) answer {
	b.t.Helper()
	var r io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		require.NoError(b.t, err)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, b.srv.URL+path, r)
	require.NoError(b.t, err)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := b.client.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	a := answer{status: res.StatusCode, header: res.Header, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

// signIn signs email in and returns the session token.
func (b *bundle) signIn(email string) string {
	b.t.Helper()
	a := b.call("POST", "/studio/v1/sessions", "", map[string]any{"email": email, "password": password})
	require.Equal(b.t, http.StatusCreated, a.status, string(a.raw))
	token, _ := a.body["token"].(string)
	require.NotEmpty(b.t, token)
	return token
}

func requireCode(t *testing.T, a answer, status int, code string) {
	t.Helper()
	require.Equal(t, status, a.status, string(a.raw))
	require.Equal(t, code, a.body["code"], string(a.raw))
}

// withoutRequestID is an error body without its requestId, which differs on every answer.
func withoutRequestID(a answer) map[string]any {
	out := map[string]any{}
	for k, v := range a.body {
		if k != "requestId" {
			out[k] = v
		}
	}
	return out
}

func TestSignInAndMe(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(b.studio.ID, members.Owner)
	a := b.call("POST", "/studio/v1/sessions", "", map[string]any{"email": email, "password": password})
	require.Equal(t, http.StatusCreated, a.status, string(a.raw))
	require.Equal(t, email, a.body["member"].(map[string]any)["email"])
	token := a.body["token"].(string)

	me := b.call("GET", "/studio/v1/me", token, nil)
	require.Equal(t, http.StatusOK, me.status, string(me.raw))
	require.Equal(t, "OWNER", me.body["role"])
	require.Equal(t, b.studio.ID.String(), me.body["studioId"])
	require.Nil(t, me.body["tokenName"])

	require.Equal(t, http.StatusNoContent, b.call("DELETE", "/studio/v1/sessions/current", token, nil).status)
	requireCode(t, b.call("GET", "/studio/v1/me", token, nil), http.StatusUnauthorized, "UNAUTHENTICATED")
}

// An unknown email and a wrong password answer the same; the sixth failure of an email is 429
// with Retry-After.
func TestSignInFailuresLookAlikeAndAreThrottled(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(b.studio.ID, members.Owner)
	wrong := b.call("POST", "/studio/v1/sessions", "", map[string]any{"email": email, "password": "not the password at all"})
	unknown := b.call("POST", "/studio/v1/sessions", "", map[string]any{"email": "nobody@acme.example", "password": "not the password at all"})
	requireCode(t, wrong, http.StatusUnauthorized, "SIGN_IN_FAILED")
	require.Equal(t, withoutRequestID(wrong), withoutRequestID(unknown))

	for range members.MaxFailures - 1 {
		requireCode(t, b.call("POST", "/studio/v1/sessions", "", map[string]any{"email": email, "password": "wrong password again"}),
			http.StatusUnauthorized, "SIGN_IN_FAILED")
	}
	limited := b.call("POST", "/studio/v1/sessions", "", map[string]any{"email": email, "password": password})
	requireCode(t, limited, http.StatusTooManyRequests, "TOO_MANY_ATTEMPTS")
	require.NotEmpty(t, limited.header.Get("Retry-After"))
}

// Whatever is wrong with the credentials, the answer is the same 401.
func TestUnauthenticatedAnswersAreEqual(t *testing.T) {
	t.Parallel()
	b := setup(t)
	var first map[string]any
	for _, token := range []string{"", "rss_" + strings.Repeat("a", 43), "rst_" + strings.Repeat("b", 40), "garbage"} {
		a := b.call("GET", "/studio/v1/games", token, nil)
		requireCode(t, a, http.StatusUnauthorized, "UNAUTHENTICATED")
		if first == nil {
			first = withoutRequestID(a)
		}
		require.Equal(t, first, withoutRequestID(a), "token %q", token)
	}
}

// A VIEWER reads and changes nothing; another studio's game is 404 as an unknown one.
func TestRolesAndOwnership(t *testing.T) {
	t.Parallel()
	b := setup(t)
	viewer := b.signIn(b.member(b.studio.ID, members.Viewer))
	owner := b.signIn(b.member(b.studio.ID, members.Owner))
	game := "/studio/v1/games/" + b.game.ID.String()

	list := b.call("GET", "/studio/v1/games", viewer, nil)
	require.Equal(t, http.StatusOK, list.status, string(list.raw))
	require.Contains(t, string(list.raw), b.game.ID.String())
	require.Equal(t, http.StatusOK, b.call("GET", game, viewer, nil).status)

	requireCode(t, b.call("POST", game+"/api-keys/test/rotate", viewer, nil), http.StatusForbidden, "ROLE_FORBIDDEN")
	_, err := b.studios.Authenticate(context.Background(), b.game.TestKey, studio.Test)
	require.NoError(t, err, "a refused rotation changes nothing")
	requireCode(t, b.call("POST", "/studio/v1/members", viewer, map[string]any{"email": "x@acme.example", "role": "VIEWER"}),
		http.StatusForbidden, "ROLE_FORBIDDEN")

	rotated := b.call("POST", game+"/api-keys/test/rotate", owner, nil)
	require.Equal(t, http.StatusCreated, rotated.status, string(rotated.raw))
	require.True(t, strings.HasPrefix(rotated.body["apiKey"].(string), "rk_test_"))
	_, err = b.studios.Authenticate(context.Background(), b.game.TestKey, studio.Test)
	require.Error(t, err, "the old key stops working")
	found := false
	for _, e := range b.audit.entries {
		found = found || e.Action == "api_key.rotate" || strings.Contains(e.Action, "rotate")
		require.NotContains(t, e.Details, rotated.body["apiKey"])
	}

	other, err := b.studios.CreateStudio(context.Background(), "Rival")
	require.NoError(t, err)
	rival := b.signIn(b.member(other.ID, members.Owner))
	for _, c := range []struct{ method, path string }{
		{"GET", game}, {"POST", game + "/api-keys/test/rotate"}, {"GET", game + "/placements/test"}, {"GET", game + "/integration"},
		{"GET", "/studio/v1/games/not-a-game"}, {"GET", "/studio/v1/games/" + uuid.NewString()},
	} {
		requireCode(t, b.call(c.method, c.path, rival, nil), http.StatusNotFound, "GAME_NOT_FOUND")
	}
	require.NotContains(t, string(b.call("GET", "/studio/v1/games", rival, nil).raw), b.game.ID.String())
}

// Members and tokens: owners manage members, the last owner stays, a token never outranks its
// maker and works as a bearer until revoked.
func TestMembersAndTokens(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ownerEmail := b.member(b.studio.ID, members.Owner)
	owner := b.signIn(ownerEmail)

	inv := b.call("POST", "/studio/v1/members", owner, map[string]any{"email": "dev@acme.example", "role": "DEVELOPER"})
	require.Equal(t, http.StatusCreated, inv.status, string(inv.raw))
	require.Equal(t, "INVITED", inv.body["status"])
	require.Contains(t, inv.body["inviteUrl"], "/console/invite/")
	requireCode(t, b.call("POST", "/studio/v1/members", owner, map[string]any{"email": "dev@acme.example", "role": "VIEWER"}),
		http.StatusConflict, "MEMBER_EXISTS")

	token := inv.body["inviteUrl"].(string)
	token = token[strings.LastIndex(token, "/")+1:]
	accepted := b.call("POST", "/studio/v1/invites/"+token+"/accept", "", map[string]any{"name": "Dev", "password": password})
	require.Equal(t, http.StatusOK, accepted.status, string(accepted.raw))
	requireCode(t, b.call("POST", "/studio/v1/invites/"+token+"/accept", "", map[string]any{"name": "Dev", "password": password}),
		http.StatusNotFound, "LINK_INVALID")
	dev := b.signIn("dev@acme.example")

	me := b.call("GET", "/studio/v1/me", owner, nil)
	requireCode(t, b.call("PATCH", "/studio/v1/members/"+me.body["id"].(string), owner, map[string]any{"role": "VIEWER"}),
		http.StatusConflict, "LAST_OWNER")
	requireCode(t, b.call("DELETE", "/studio/v1/members/"+me.body["id"].(string), owner, nil), http.StatusConflict, "LAST_OWNER")
	requireCode(t, b.call("DELETE", "/studio/v1/members/"+uuid.NewString(), owner, nil), http.StatusNotFound, "MEMBER_NOT_FOUND")

	requireCode(t, b.call("POST", "/studio/v1/tokens", dev, map[string]any{"name": "ci", "role": "OWNER", "days": 30}),
		http.StatusForbidden, "ROLE_FORBIDDEN")
	made := b.call("POST", "/studio/v1/tokens", dev, map[string]any{"name": "ci", "role": "VIEWER", "days": 30})
	require.Equal(t, http.StatusCreated, made.status, string(made.raw))
	rst := made.body["token"].(string)
	require.True(t, strings.HasPrefix(rst, "rst_"))

	viaToken := b.call("GET", "/studio/v1/me", rst, nil)
	require.Equal(t, http.StatusOK, viaToken.status, string(viaToken.raw))
	require.Equal(t, "VIEWER", viaToken.body["role"])
	require.Equal(t, "ci", viaToken.body["tokenName"])
	requireCode(t, b.call("POST", "/studio/v1/games/"+b.game.ID.String()+"/api-keys/live/rotate", rst, nil),
		http.StatusForbidden, "ROLE_FORBIDDEN")

	listed := b.call("GET", "/studio/v1/tokens", owner, nil)
	require.Equal(t, http.StatusOK, listed.status, string(listed.raw))
	require.NotContains(t, string(listed.raw), rst, "a token's secret is shown once")
	require.Equal(t, http.StatusNoContent, b.call("DELETE", "/studio/v1/tokens/"+made.body["id"].(string), owner, nil).status)
	requireCode(t, b.call("GET", "/studio/v1/me", rst, nil), http.StatusUnauthorized, "UNAUTHENTICATED")

	// Signing out everywhere ends the developer's sessions.
	require.Equal(t, http.StatusNoContent, b.call("DELETE", "/studio/v1/sessions", dev, nil).status)
	requireCode(t, b.call("GET", "/studio/v1/me", dev, nil), http.StatusUnauthorized, "UNAUTHENTICATED")

	audit := b.call("GET", "/studio/v1/audit?action=token.create", owner, nil)
	require.Equal(t, http.StatusOK, audit.status, string(audit.raw))
	require.Len(t, audit.body["entries"], 1)
	require.NotContains(t, string(audit.raw), rst)
}

// Every operation of the document needs credentials, but the few that make them.
func TestEveryOperationButSignInNeedsCredentials(t *testing.T) {
	t.Parallel()
	s := httpapi.New(httpapi.Config{})
	studiov1api.Register(s, studiov1api.Deps{})
	open := map[string]bool{"studio-sign-in": true, "studio-accept-invite": true, "studio-request-password-reset": true, "studio-reset-password": true}
	n := 0
	for path, item := range s.StudioAPI.OpenAPI().Paths {
		require.True(t, strings.HasPrefix(path, "/studio/v1/"), path)
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			n++
			require.Equal(t, open[op.OperationID], len(op.Security) == 0, op.OperationID)
			require.NotEmpty(t, op.Tags, op.OperationID)
			if !open[op.OperationID] {
				require.Contains(t, op.Responses, "401", op.OperationID)
			}
		}
	}
	require.Greater(t, n, 40)
	require.Empty(t, s.API.OpenAPI().Paths["/studio/v1/me"], "the public document leaves the studio API out")
}

// While the studio requires TOTP, a member without it reads /me and sets TOTP up, and nothing
// else; with TOTP on, everything their role allows works again.
func TestRequiredTOTP(t *testing.T) {
	t.Parallel()
	b := setup(t)
	owner := b.signIn(b.member(b.studio.ID, members.Owner))
	dev := b.signIn(b.member(b.studio.ID, members.Developer))

	requireCode(t, b.call("PUT", "/studio/v1/totp-requirement", dev, map[string]any{"required": true}), http.StatusForbidden, "ROLE_FORBIDDEN")
	set := b.call("PUT", "/studio/v1/totp-requirement", owner, map[string]any{"required": true})
	require.Equal(t, http.StatusOK, set.status, string(set.raw))
	require.Equal(t, true, set.body["required"])
	// The owner has no TOTP either: they too may only set it up now.
	requireCode(t, b.call("GET", "/studio/v1/totp-requirement", owner, nil), http.StatusForbidden, "TOTP_SETUP_REQUIRED")

	requireCode(t, b.call("GET", "/studio/v1/games", dev, nil), http.StatusForbidden, "TOTP_SETUP_REQUIRED")
	me := b.call("GET", "/studio/v1/me", dev, nil)
	require.Equal(t, http.StatusOK, me.status, string(me.raw))
	require.Equal(t, true, me.body["mustSetUpTotp"])

	setup := b.call("POST", "/studio/v1/me/totp", dev, nil)
	require.Equal(t, http.StatusCreated, setup.status, string(setup.raw))
	secret := setup.body["secret"].(string)
	require.True(t, strings.HasPrefix(setup.body["url"].(string), "otpauth://"))
	requireCode(t, b.call("POST", "/studio/v1/me/totp/confirm", dev, map[string]any{"code": "000000"}), http.StatusBadRequest, "TOTP_INVALID")
	code, err := totp.GenerateCode(secret, time.Now())
	require.NoError(t, err)
	require.Equal(t, http.StatusNoContent, b.call("POST", "/studio/v1/me/totp/confirm", dev, map[string]any{"code": code}).status)

	again := b.call("GET", "/studio/v1/games", dev, nil)
	require.Equal(t, http.StatusOK, again.status, string(again.raw))
	require.NotContains(t, string(b.call("GET", "/studio/v1/audit", dev, nil).raw), secret, "a TOTP secret is never in the audit log")
}

// Password resets answer alike for any email; a reset link works once and ends the sessions.
func TestPasswordReset(t *testing.T) {
	t.Parallel()
	b := setup(t)
	email := b.member(b.studio.ID, members.Viewer)
	session := b.signIn(email)
	for _, e := range []string{email, "nobody@acme.example"} {
		a := b.call("POST", "/studio/v1/password-resets", "", map[string]any{"email": e})
		require.Equal(t, http.StatusAccepted, a.status, string(a.raw))
		require.Empty(t, a.raw)
	}
	requireCode(t, b.call("POST", "/studio/v1/password-resets/"+strings.Repeat("x", 43), "", map[string]any{"password": "a brand new password"}),
		http.StatusNotFound, "LINK_INVALID")
	require.Equal(t, http.StatusOK, b.call("GET", "/studio/v1/me", session, nil).status)
}

// Every operation that changes something refuses a VIEWER (a member or a VIEWER token) with 403
// ROLE_FORBIDDEN, sent the very request its document gives as the example; every OWNER-only
// one refuses a DEVELOPER the same way. The only changes without a role are a member's own:
// signing in and out, invitations, resets and their own TOTP.
func TestRolesOnEveryOperation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	viewer := b.signIn(b.member(b.studio.ID, members.Viewer))
	dev := b.signIn(b.member(b.studio.ID, members.Developer))
	made := b.call("POST", "/studio/v1/tokens", dev, map[string]any{"name": "read-only", "role": "VIEWER", "days": 1})
	require.Equal(t, http.StatusCreated, made.status, string(made.raw))
	viewerToken := made.body["token"].(string)

	s := httpapi.New(httpapi.Config{})
	studiov1api.Register(s, studiov1api.Deps{})
	fill := strings.NewReplacer("{gameId}", b.game.ID.String(), "{environment}", "test")
	own := map[string]bool{"studio-sign-in": true, "studio-sign-out": true, "studio-sign-out-everywhere": true,
		"studio-accept-invite": true, "studio-request-password-reset": true, "studio-reset-password": true,
		"studio-begin-totp": true, "studio-confirm-totp": true, "studio-disable-totp": true}
	checked := 0
	for path, item := range s.StudioAPI.OpenAPI().Paths {
		for method, op := range map[string]*huma.Operation{"POST": item.Post, "PUT": item.Put, "PATCH": item.Patch, "DELETE": item.Delete} {
			if op == nil {
				continue
			}
			var refused []string
			switch {
			case strings.Contains(op.Description, "Needs OWNER"):
				refused = []string{viewer, viewerToken, dev}
			case strings.Contains(op.Description, "Needs DEVELOPER or OWNER"):
				refused = []string{viewer, viewerToken}
			default:
				require.True(t, own[op.OperationID], "%s changes something without a role", op.OperationID)
				continue
			}
			url := fill.Replace(path)
			for strings.Contains(url, "{") {
				i, j := strings.Index(url, "{"), strings.Index(url, "}")
				url = url[:i] + uuid.NewString() + url[j+1:]
			}
			var body any
			if op.RequestBody != nil {
				body = op.RequestBody.Content["application/json"].Example
			}
			for _, token := range refused {
				requireCode(t, b.call(method, url, token, body), http.StatusForbidden, "ROLE_FORBIDDEN")
			}
			checked++
		}
	}
	require.Equal(t, 23, checked)
}

// Every operation on a game answers another studio's owner 404 GAME_NOT_FOUND, as for a game
// that does not exist, and changes nothing.
func TestAnotherStudiosGameIsNotFoundOnEveryOperation(t *testing.T) {
	t.Parallel()
	b := setup(t)
	other, err := b.studios.CreateStudio(context.Background(), "Rival")
	require.NoError(t, err)
	rival := b.signIn(b.member(other.ID, members.Owner))

	s := httpapi.New(httpapi.Config{})
	studiov1api.Register(s, studiov1api.Deps{})
	fill := strings.NewReplacer("{gameId}", b.game.ID.String(), "{environment}", "test")
	checked := 0
	for path, item := range s.StudioAPI.OpenAPI().Paths {
		if !strings.Contains(path, "{gameId}") {
			continue
		}
		for method, op := range map[string]*huma.Operation{"GET": item.Get, "POST": item.Post, "PUT": item.Put, "PATCH": item.Patch, "DELETE": item.Delete} {
			if op == nil {
				continue
			}
			url := fill.Replace(path)
			for strings.Contains(url, "{") {
				i, j := strings.Index(url, "{"), strings.Index(url, "}")
				url = url[:i] + uuid.NewString() + url[j+1:]
			}
			if op.OperationID == "studio-lookup-player" {
				url += "?ref=someone"
			}
			var body any
			if op.RequestBody != nil {
				body = op.RequestBody.Content["application/json"].Example
			}
			requireCode(t, b.call(method, url, rival, body), http.StatusNotFound, "GAME_NOT_FOUND")
			checked++
		}
	}
	require.Equal(t, 30, checked)
	_, err = b.studios.Authenticate(context.Background(), b.game.TestKey, studio.Test)
	require.NoError(t, err, "the game's key still works")
}
