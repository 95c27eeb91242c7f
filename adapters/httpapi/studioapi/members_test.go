package studioapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/httpapi/studioapi"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/audit/auditfake"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/members/membersfake"
	"github.com/rewardsco/rewards/core/store/memstore"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/studio/studiofake"
)

const operatorToken = "operator-token-operator-token-0000"

type outbox struct{ sent []mail.Message }

func (o *outbox) Send(_ context.Context, m mail.Message) error {
	o.sent = append(o.sent, m)
	return nil
}

// The operator invites a studio's first owner: 201 with the invitation link, emailed too; the
// member lists as INVITED; an unknown studio is 404 and a second invitation of an email 409.
func TestOperatorInvitesAStudioMember(t *testing.T) {
	t.Parallel()
	runner := &memstore.Runner{}
	log, entries := auditfake.NewLog(runner, nil)
	mails := &outbox{}
	ms := members.NewService(runner, memstore.New[members.Repo](runner, membersfake.New()), log,
		members.Config{Mail: mails, PublicURL: "http://rewards.test"})
	ss := studio.NewService(memstore.New[studio.Repo](runner, studiofake.New()), log)
	s := httpapi.New(httpapi.Config{AdminToken: operatorToken})
	studioapi.RegisterMembers(s, ss, ms)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	st, err := ss.CreateStudio(context.Background(), "Pixel Forge")
	require.NoError(t, err)

	call := func(method, path, token, body string) (int, map[string]any, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		require.NoError(t, err)
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return res.StatusCode, m, raw
	}
	path := "/admin/v1/studios/" + st.ID.String() + "/members"
	body := `{"email":"Owner@PixelForge.example","role":"OWNER"}`

	status, _, _ := call("POST", path, "", body)
	require.Equal(t, http.StatusUnauthorized, status)

	status, inv, raw := call("POST", path, operatorToken, body)
	require.Equal(t, http.StatusCreated, status, string(raw))
	require.Equal(t, "owner@pixelforge.example", inv["email"])
	require.Equal(t, "OWNER", inv["role"])
	require.Equal(t, "INVITED", inv["status"])
	require.True(t, strings.HasPrefix(inv["inviteUrl"].(string), "http://rewards.test/console/invite/"), inv["inviteUrl"])
	require.Len(t, mails.sent, 1)
	logged, err := entries.List(context.Background(), audit.Filter{StudioID: st.ID, Action: "member.invite", Limit: 10})
	require.NoError(t, err)
	require.Len(t, logged, 1, "the invitation is audited")
	require.Contains(t, mails.sent[0].Text, inv["inviteUrl"])

	status, dup, _ := call("POST", path, operatorToken, body)
	require.Equal(t, http.StatusConflict, status)
	require.Equal(t, "MEMBER_EXISTS", dup["code"])

	status, _, raw = call("GET", path, operatorToken, "")
	require.Equal(t, http.StatusOK, status, string(raw))
	var list []map[string]any
	require.NoError(t, json.Unmarshal(raw, &list))
	require.Len(t, list, 1)
	require.Equal(t, "INVITED", list[0]["status"])

	for _, other := range []string{uuid.NewString(), "not-a-studio"} {
		status, nf, _ := call("POST", "/admin/v1/studios/"+other+"/members", operatorToken, body)
		require.Equal(t, http.StatusNotFound, status)
		require.Equal(t, "STUDIO_NOT_FOUND", nf["code"])
		status, _, _ = call("GET", "/admin/v1/studios/"+other+"/members", operatorToken, "")
		require.Equal(t, http.StatusNotFound, status)
	}
}
