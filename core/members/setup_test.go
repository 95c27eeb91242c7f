package members_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/pquerna/otp/totp"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/members/membersfake"
	"github.com/rewardsco/rewards/core/store/memstore"
)

const (
	publicURL = "https://rewards.example.com"
	password  = "correct horse battery"
)

// clock is the service's clock, moved by the test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// inbox is a mail.Sender that keeps what it is given.
type inbox struct {
	mu   sync.Mutex
	sent []mail.Message
}

func (i *inbox) Send(_ context.Context, m mail.Message) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.sent = append(i.sent, m)
	return nil
}

// to returns the messages sent to email.
func (i *inbox) to(email string) []mail.Message {
	i.mu.Lock()
	defer i.mu.Unlock()
	var out []mail.Message
	for _, m := range i.sent {
		if m.To == email {
			out = append(out, m)
		}
	}
	return out
}

// link returns the token of the last link to email under path ("/console/invite/").
func (i *inbox) link(t *testing.T, email, path string) string {
	t.Helper()
	msgs := i.to(email)
	require.NotEmpty(t, msgs, "no email to %s", email)
	text := msgs[len(msgs)-1].Text
	at := strings.Index(text, publicURL+path)
	require.GreaterOrEqual(t, at, 0, "no %s link in %q", path, text)
	token, _, _ := strings.Cut(text[at+len(publicURL+path):], "\n")
	return token
}

type bundle struct {
	ctx    context.Context
	svc    *members.Service
	repo   *membersfake.Repo
	audit  *auditfake.Repo
	inbox  *inbox
	clock  *clock
	studio uuid.UUID
}

func setup(t *testing.T) bundle {
	t.Helper()
	runner := &memstore.Runner{}
	repo, auditRepo := membersfake.New(), auditfake.New(nil)
	b := bundle{ctx: context.Background(), repo: repo, audit: auditRepo, inbox: &inbox{},
		clock: &clock{t: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}, studio: uuid.New()}
	log := audit.New(runner, memstore.New[audit.Repo](runner, auditRepo))
	b.svc = members.NewService(runner, memstore.New[members.Repo](runner, repo), log,
		members.Config{Mail: b.inbox, PublicURL: publicURL + "/", Now: b.clock.Now})
	return b
}

// member invites email to studio as the operator, accepts, and returns the member.
func (b bundle) member(t *testing.T, studioID uuid.UUID, email string, role members.Role) members.Member {
	t.Helper()
	inv, err := b.svc.Invite(b.ctx, studioID, nil, email, role)
	require.NoError(t, err)
	m, err := b.svc.AcceptInvite(b.ctx, b.inbox.link(t, strings.ToLower(email), "/console/invite/"), "Name "+email, password)
	require.NoError(t, err)
	require.Equal(t, inv.Member.ID, m.ID)
	return m
}

// signIn signs email in and returns the session and its principal.
func (b bundle) signIn(t *testing.T, email, code string) (members.Session, members.Principal) {
	t.Helper()
	s, err := b.svc.SignIn(b.ctx, email, password, code)
	require.NoError(t, err)
	p, err := b.svc.Authenticate(b.ctx, s.Token)
	require.NoError(t, err)
	return s, p
}

// principal makes a member of b.studio with role and signs them in.
func (b bundle) principal(t *testing.T, email string, role members.Role) members.Principal {
	t.Helper()
	b.member(t, b.studio, email, role)
	_, p := b.signIn(t, email, "")
	return p
}

// code is the current TOTP code of secret on b's clock.
func (b bundle) code(t *testing.T, secret string) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, b.clock.Now())
	require.NoError(t, err)
	return c
}

// entries returns the studio's audit entries, oldest first.
func (b bundle) entries(t *testing.T, studioID uuid.UUID) []audit.Entry {
	t.Helper()
	list, err := b.audit.List(b.ctx, audit.Filter{StudioID: studioID, Limit: 1000})
	require.NoError(t, err)
	for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
		list[i], list[j] = list[j], list[i]
	}
	return list
}

func actions(es []audit.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Action
	}
	return out
}
