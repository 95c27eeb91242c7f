// Package mail implements the core's mail.Sender port: SMTP sends through an SMTP server
// (github.com/wneessen/go-mail) named by a URL, and Log writes each message, links included, to
// the log for local runs, as the OTP codes of adapters/sms are.
package mail

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"regexp"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"

	coremail "github.com/rewardsco/rewards/core/mail"
)

// Default ports of the URL schemes: the submission port, with STARTTLS when the server offers
// it, and the submissions port, TLS from the first byte (RFC 8314).
const (
	defaultSMTPPort  = 587
	defaultSMTPSPort = 465
)

// server is what an SMTP URL says.
type server struct {
	host       string
	port       int
	implicit   bool // smtps: TLS from the first byte
	user, pass string
}

// parseURL reads smtp://[user[:pass]@]host[:port] or smtps://…; the user and password are
// percent-decoded. Errors never repeat the URL, which may hold the password.
func parseURL(raw string) (server, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return server{}, errors.New("is not a URL such as smtp://user:pass@smtp.example.com:587")
	}
	var s server
	switch u.Scheme {
	case "smtp":
		s.port = defaultSMTPPort
	case "smtps":
		s.port, s.implicit = defaultSMTPSPort, true
	default:
		return server{}, errors.New("must start smtp:// (STARTTLS when offered) or smtps:// (implicit TLS)")
	}
	s.host = u.Hostname()
	if s.host == "" {
		return server{}, errors.New("names no host")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return server{}, errors.New("has a port that is not a number from 1 to 65535")
		}
		s.port = n
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return server{}, errors.New("must be only scheme, credentials, host and port")
	}
	if u.User != nil {
		s.user = u.User.Username()
		s.pass, _ = u.User.Password()
	}
	return s, nil
}

// CheckURL says what is wrong with an SMTP URL, as the end of a sentence that starts with the
// setting's name, or nil. The error never repeats the URL.
func CheckURL(raw string) error {
	_, err := parseURL(raw)
	return err
}

// CheckFrom says what is wrong with a From address ("Rewards <no-reply@example.com>" or a bare
// address), or nil.
func CheckFrom(from string) error {
	if _, err := netmail.ParseAddress(from); err != nil {
		return errors.New("must be an email address, such as Rewards <no-reply@example.com>")
	}
	return nil
}

// SMTP sends each message over its own connection to the server. It is safe for concurrent
// use. Over smtp:// it upgrades with STARTTLS when the server offers it and sends in the clear
// when it does not; it authenticates only when the URL has a user, and then never with a
// mechanism that would show the password on an unencrypted connection.
type SMTP struct {
	srv       server
	from      string
	tlsConfig *tls.Config
	timeout   time.Duration
}

var _ coremail.Sender = (*SMTP)(nil)

// Option adjusts an SMTP sender.
type Option func(*SMTP)

// WithTLSConfig sets the TLS configuration (for a private CA, say); by default the system's
// roots verify the server's certificate for the URL's host.
func WithTLSConfig(cfg *tls.Config) Option { return func(s *SMTP) { s.tlsConfig = cfg } }

// WithTimeout bounds one message's whole conversation; 15 s by default.
func WithTimeout(d time.Duration) Option { return func(s *SMTP) { s.timeout = d } }

// NewSMTP returns a sender for the server the URL names, with the From address given.
func NewSMTP(rawURL, from string, opts ...Option) (*SMTP, error) {
	srv, err := parseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("SMTP URL %w", err)
	}
	if err := CheckFrom(from); err != nil {
		return nil, fmt.Errorf("mail From %w", err)
	}
	s := &SMTP{srv: srv, from: from, timeout: 15 * time.Second}
	for _, o := range opts {
		o(s)
	}
	if s.tlsConfig == nil {
		s.tlsConfig = &tls.Config{ServerName: srv.host, MinVersion: tls.VersionTLS12}
	}
	return s, nil
}

// Send implements mail.Sender: it returns once the server has accepted the message. Its error
// names neither the recipient nor the message.
func (s *SMTP) Send(ctx context.Context, m coremail.Message) error {
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	if err := msg.From(s.from); err != nil {
		return fmt.Errorf("mail From: %w", err)
	}
	if err := msg.To(m.To); err != nil {
		return errors.New("mail: the recipient is not an email address")
	}
	msg.Subject(m.Subject)
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)

	opts := []gomail.Option{
		gomail.WithPort(s.srv.port),
		gomail.WithTimeout(s.timeout),
		gomail.WithTLSConfig(s.tlsConfig),
	}
	if s.srv.implicit {
		opts = append(opts, gomail.WithSSL())
	} else {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
	}
	if s.srv.user != "" {
		// PLAIN and LOGIN only once encrypted; challenge mechanisms also in the clear.
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(s.srv.user), gomail.WithPassword(s.srv.pass))
	}
	c, err := gomail.NewClient(s.srv.host, opts...)
	if err != nil {
		return fmt.Errorf("smtp client: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		// go-mail's errors list the affected recipients and the server's reply, which often
		// repeats the address; the caller logs this error.
		return fmt.Errorf("smtp %s:%d: %s", s.srv.host, s.srv.port, redact(err.Error(), m.To))
	}
	return nil
}

// redact replaces every spelling of the address in s.
func redact(s, address string) string {
	if address == "" {
		return s
	}
	return regexp.MustCompile(`(?i)`+regexp.QuoteMeta(address)).ReplaceAllString(s, "<recipient>")
}

// Log "sends" by logging the whole message, links included. For local runs only.
type Log struct {
	Logger *slog.Logger
}

var _ coremail.Sender = Log{}

// Send implements mail.Sender.
func (l Log) Send(ctx context.Context, m coremail.Message) error {
	l.Logger.InfoContext(ctx, "email (logging sender, not delivered)", "to", m.To, "subject", m.Subject, "text", m.Text)
	return nil
}

// FromConfig is the sender the configuration asks for: SMTP through rawURL (REWARDS_SMTP_URL)
// from the address from (REWARDS_MAIL_FROM) when rawURL is set, else the log, which production
// mode refuses before this is called.
func FromConfig(rawURL, from string, log *slog.Logger) (coremail.Sender, error) {
	if rawURL == "" {
		return Log{Logger: log}, nil
	}
	return NewSMTP(rawURL, from)
}
