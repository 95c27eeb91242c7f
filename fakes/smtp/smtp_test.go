package smtp_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	netsmtp "net/smtp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/fakes/smtp"
)

func start(t *testing.T, opts ...smtp.Option) (fake *smtp.Server, smtpAddr, inbox string) {
	t.Helper()
	fake = smtp.New(opts...)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go fake.Serve(l) //nolint:errcheck // ends when the listener closes
	mux := http.NewServeMux()
	fake.Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return fake, l.Addr().String(), srv.URL + "/smtp/messages"
}

func list(t *testing.T, url string) []smtp.Message {
	t.Helper()
	res, err := http.Get(url)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, 200, res.StatusCode)
	var out []smtp.Message
	require.NoError(t, json.NewDecoder(res.Body).Decode(&out))
	return out
}

// The inbox gives each recipient the decoded subject and text, newest first, and forgets all on
// DELETE.
func TestInbox(t *testing.T) {
	t.Parallel()
	_, addr, inbox := start(t)
	require.Empty(t, list(t, inbox))

	plain := "From: Rewards <no-reply@example.com>\r\nTo: a@example.com\r\nSubject: First\r\n\r\nline one\r\nline two\r\n"
	require.NoError(t, netsmtp.SendMail(addr, nil, "bounce@example.com", []string{"a@example.com"}, []byte(plain)))
	// Encoded subject, a multipart body whose text/plain part is base64, two recipients.
	multi := "From: no-reply@example.com\r\nSubject: =?UTF-8?q?Caf=C3=A9_invite?=\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/alternative; boundary=XYZ\r\n\r\n" +
		"--XYZ\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n" +
		"--XYZ\r\nContent-Type: text/plain; charset=UTF-8\r\nContent-Transfer-Encoding: base64\r\n\r\n" +
		"T3BlbiBodHRwOi8vbG9jYWxob3N0L2NvbnNvbGUvaW52aXRl\r\nL2FiYz94PTE=\r\n--XYZ--\r\n"
	require.NoError(t, netsmtp.SendMail(addr, nil, "bounce@example.com", []string{"a@example.com", "B@example.com"}, []byte(multi)))

	a := list(t, inbox+"?to=A@example.com")
	require.Len(t, a, 2)
	require.Equal(t, "Café invite", a[0].Subject, "newest first")
	require.Equal(t, "Open http://localhost/console/invite/abc?x=1", a[0].Text)
	require.Equal(t, "First", a[1].Subject)
	require.Equal(t, "line one\nline two", a[1].Text)
	require.Equal(t, "no-reply@example.com", a[1].From, "the header's address, not the envelope's")
	require.Equal(t, "a@example.com", a[1].To)
	require.WithinDuration(t, time.Now(), a[0].ReceivedAt, 5*time.Second)
	b := list(t, inbox+"?to=b@example.com")
	require.Len(t, b, 1)
	require.Equal(t, "B@example.com", b[0].To)
	require.Len(t, list(t, inbox), 3)

	req, _ := http.NewRequest(http.MethodDelete, inbox, nil)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusNoContent, res.StatusCode)
	require.Empty(t, list(t, inbox))
}

// With credentials, nothing is taken before AUTH.
func TestCredentialsAreRequired(t *testing.T) {
	t.Parallel()
	fake, addr, _ := start(t, smtp.WithCredentials("u", "p"))
	msg := []byte("Subject: x\r\n\r\nbody\r\n")
	err := netsmtp.SendMail(addr, nil, "from@example.com", []string{"to@example.com"}, msg)
	require.Error(t, err)
	require.Empty(t, fake.Messages(""))
	// The standard client sends PLAIN only over TLS or to localhost: here, localhost.
	host, _, _ := strings.Cut(addr, ":")
	err = netsmtp.SendMail(addr, netsmtp.PlainAuth("", "u", "wrong", host), "from@example.com", []string{"to@example.com"}, msg)
	require.Error(t, err)
	require.NoError(t, netsmtp.SendMail(addr, netsmtp.PlainAuth("", "u", "p", host), "from@example.com", []string{"to@example.com"}, msg))
	require.Len(t, fake.Messages("to@example.com"), 1)
}
