package mail_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"log/slog"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/mail"
	coremail "github.com/rewardsco/rewards/core/mail"
	fakesmtp "github.com/rewardsco/rewards/fakes/smtp"
)

// bundle is a fake SMTP server listening on loopback, and what a client needs to trust it.
type bundle struct {
	fake   *fakesmtp.Server
	addr   string
	client *tls.Config
}

// setup starts the fake: plain (STARTTLS offered when withTLS), or implicit TLS when smtps.
func setup(t *testing.T, withTLS, smtps bool, opts ...fakesmtp.Option) bundle {
	t.Helper()
	serverTLS, clientTLS := certificates(t)
	if withTLS || smtps {
		opts = append(opts, fakesmtp.WithTLS(serverTLS))
	}
	fake := fakesmtp.New(opts...)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	serve := fake.Serve
	if smtps {
		serve = fake.ServeTLS
	}
	go serve(l) //nolint:errcheck // ends when the listener closes
	return bundle{fake: fake, addr: l.Addr().String(), client: clientTLS}
}

// certificates makes a self-signed certificate for 127.0.0.1: the server's configuration, and a
// client's that trusts it.
func certificates(t *testing.T) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "fake smtp"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}, MinVersion: tls.VersionTLS12},
		&tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
}

const from = "Rewards <no-reply@rewards.example.com>"

// An invitation as the members module writes it: a long link with characters that
// quoted-printable encodes, and text beyond ASCII.
var invitation = coremail.Message{
	To:      "Owner@Studio.example.com",
	Subject: "You're invited to Café Studio on Rewards",
	Text: "Hello,\n\nYou are invited to join Café Studio as OWNER. Accept within 72 hours:\n\n" +
		"http://localhost:8080/console/invite/" + strings.Repeat("aB3-_=", 12) + "?x=1&y=2\n\nRewards",
}

func TestSMTPDelivers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		withTLS, smtps bool
		creds          bool
		scheme         string
	}{
		{"plain server, no STARTTLS offered", false, false, false, "smtp"},
		{"STARTTLS and AUTH PLAIN", true, false, true, "smtp"},
		{"implicit TLS and AUTH PLAIN", false, true, true, "smtps"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []fakesmtp.Option
			userinfo := ""
			if tc.creds {
				opts = append(opts, fakesmtp.WithCredentials("mailer@studio", "p@ss:word/1"))
				userinfo = "mailer%40studio:p%40ss%3Aword%2F1@" // percent-encoded in the URL
			}
			b := setup(t, tc.withTLS, tc.smtps, opts...)
			s, err := mail.NewSMTP(tc.scheme+"://"+userinfo+b.addr, from, mail.WithTLSConfig(b.client))
			require.NoError(t, err)
			start := time.Now().UTC().Add(-time.Second)
			require.NoError(t, s.Send(context.Background(), invitation))

			got := b.fake.Messages("owner@studio.example.com") // addresses match in any case
			require.Len(t, got, 1)
			require.Equal(t, invitation.To, got[0].To)
			require.Equal(t, "no-reply@rewards.example.com", got[0].From)
			require.Equal(t, invitation.Subject, got[0].Subject)
			require.Equal(t, invitation.Text, got[0].Text, "the link arrives whole")
			require.WithinRange(t, got[0].ReceivedAt, start, time.Now().UTC().Add(time.Second))
			require.Empty(t, b.fake.Messages("someone-else@studio.example.com"))
		})
	}
}

// With credentials over smtp:// to a server that offers no STARTTLS, the password would cross
// in the clear with PLAIN or LOGIN: the sender refuses to send rather than show it.
func TestSMTPNeverSendsThePasswordInTheClear(t *testing.T) {
	t.Parallel()
	b := setup(t, false, false, fakesmtp.WithCredentials("mailer", "secret-password"))
	s, err := mail.NewSMTP("smtp://mailer:secret-password@"+b.addr, from)
	require.NoError(t, err)
	err = s.Send(context.Background(), invitation)
	require.ErrorContains(t, err, "not able to detect a supported authentication mechanism")
	require.Empty(t, b.fake.Messages(""))
}

// A refused message's error is logged by the caller: it names the server, never the
// recipient, the password or the link.
func TestSMTPErrorsNameNoSecretNorRecipient(t *testing.T) {
	t.Parallel()
	b := setup(t, true, false, fakesmtp.WithCredentials("mailer", "right-password"))
	s, err := mail.NewSMTP("smtp://mailer:wrong-password@"+b.addr, from, mail.WithTLSConfig(b.client))
	require.NoError(t, err)
	err = s.Send(context.Background(), invitation)
	require.Error(t, err)
	for _, secret := range []string{"wrong-password", "right-password", "owner@studio", "Owner@Studio", "/console/invite/"} {
		require.NotContains(t, err.Error(), secret)
	}
	require.Empty(t, b.fake.Messages(""))

	// Nothing listens: refused at once, the address named.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	l.Close()
	s, err = mail.NewSMTP("smtp://"+addr, from)
	require.NoError(t, err)
	err = s.Send(context.Background(), invitation)
	require.ErrorContains(t, err, addr)
	require.NotContains(t, strings.ToLower(err.Error()), "owner@studio")
}

func TestSMTPSendsConcurrently(t *testing.T) {
	t.Parallel()
	b := setup(t, true, false)
	s, err := mail.NewSMTP("smtp://"+b.addr, from, mail.WithTLSConfig(b.client))
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 20)
	for i := range 20 {
		wg.Go(func() {
			errs <- s.Send(context.Background(), coremail.Message{To: fmt.Sprintf("m%d@studio.example.com", i), Subject: "Hi", Text: "Hello"})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, b.fake.Messages(""), 20)
	require.Len(t, b.fake.Messages("m7@studio.example.com"), 1)
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"smtp://fakes:2525":                    "",
		"smtp://user:pass@smtp.example.com":    "",
		"smtps://u:p%2Fq@smtp.example.com:465": "",
		"smtp://[::1]:25":                      "",
		"http://smtp.example.com":              "must start smtp://",
		"smtp.example.com:587":                 "must start smtp://",
		"smtp://":                              "names no host",
		"smtp://host:0":                        "port",
		"smtp://host:70000":                    "port",
		"smtp://host/path":                     "only scheme",
		"smtp://host?tls=off":                  "only scheme",
		"smtp://user:se%cret@host":             "is not a URL",
	} {
		err := mail.CheckURL(raw)
		if want == "" {
			require.NoError(t, err, raw)
			continue
		}
		require.ErrorContains(t, err, want, raw)
		require.NotContains(t, err.Error(), "cret", "the error never repeats the URL")
	}
	require.NoError(t, mail.CheckFrom("no-reply@example.com"))
	require.NoError(t, mail.CheckFrom(from))
	require.Error(t, mail.CheckFrom("Rewards"))
	require.Error(t, mail.CheckFrom(""))
	_, err := mail.NewSMTP("smtp://host", "not an address")
	require.ErrorContains(t, err, "mail From must be an email address")
}

// Local runs: the message, link included, is in the log.
func TestLogWritesTheMessage(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	s, err := mail.FromConfig("", "", log)
	require.NoError(t, err)
	require.IsType(t, mail.Log{}, s)
	require.NoError(t, s.Send(context.Background(), invitation))
	require.Contains(t, logs.String(), "/console/invite/"+strings.Repeat("aB3-_=", 12))
	require.Contains(t, logs.String(), invitation.To)
	require.Contains(t, logs.String(), "not delivered")

	s, err = mail.FromConfig("smtp://fakes:2525", from, log)
	require.NoError(t, err)
	require.IsType(t, &mail.SMTP{}, s)
	_, err = mail.FromConfig("ftp://fakes", from, log)
	require.ErrorContains(t, err, "SMTP URL must start smtp://")
}
