// Package smtp is a fake mail server: an SMTP server (github.com/emersion/go-smtp) that keeps
// every message it accepts in memory, and an HTTP inbox from which tests read them as the
// recipient would, invitation and reset links included:
//
//	SMTP (plain; STARTTLS when given a TLS configuration; AUTH PLAIN, even in the clear, when
//	given credentials)
//	GET    /smtp/messages?to=<email>   [{to, from, subject, text, receivedAt}], newest first;
//	                                   without to, every message
//	DELETE /smtp/messages              forget every message
//
// A message sent to several recipients is kept once for each, as each would find it in their
// own mailbox. The text is the decoded text/plain body (quoted-printable and base64 undone, the
// text/plain part of a multipart message).
package smtp

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/http"
	netmail "net/mail"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"
)

// Message is one message as one recipient received it.
type Message struct {
	To         string    `json:"to"`
	From       string    `json:"from"`
	Subject    string    `json:"subject"`
	Text       string    `json:"text"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// maxMessageBytes bounds one message; the service's mail is a few hundred bytes.
const maxMessageBytes = 1 << 20

// Server is the fake. The zero value is not usable; call New.
type Server struct {
	user, pass string
	tlsConfig  *tls.Config

	mu       sync.Mutex
	messages []Message
}

// Option configures a Server.
type Option func(*Server)

// WithCredentials makes the server require AUTH PLAIN with this user and password before it
// takes a message. Without it, any client may send.
func WithCredentials(user, pass string) Option {
	return func(s *Server) { s.user, s.pass = user, pass }
}

// WithTLS gives the server a certificate: it offers STARTTLS on plain connections, and
// ServeTLS serves implicit TLS (smtps).
func WithTLS(cfg *tls.Config) Option {
	return func(s *Server) { s.tlsConfig = cfg }
}

// New returns an empty server.
func New(opts ...Option) *Server {
	s := &Server{}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Register adds the inbox's routes to mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /smtp/messages", s.list)
	mux.HandleFunc("DELETE /smtp/messages", s.reset)
}

// Serve speaks SMTP on l until l is closed.
func (s *Server) Serve(l net.Listener) error {
	return s.smtpServer().Serve(l)
}

// ServeTLS speaks SMTP over implicit TLS (smtps) on l until l is closed. It needs WithTLS.
func (s *Server) ServeTLS(l net.Listener) error {
	if s.tlsConfig == nil {
		return errors.New("fake smtp: ServeTLS needs WithTLS")
	}
	return s.smtpServer().Serve(tls.NewListener(l, s.tlsConfig))
}

func (s *Server) smtpServer() *gosmtp.Server {
	srv := gosmtp.NewServer(gosmtp.BackendFunc(func(*gosmtp.Conn) (gosmtp.Session, error) {
		return &session{srv: s}, nil
	}))
	srv.Domain = "fake-smtp.local"
	srv.TLSConfig = s.tlsConfig
	srv.MaxMessageBytes = maxMessageBytes
	srv.MaxRecipients = 50
	// A client may authenticate in the clear, so that tests see whether it would.
	srv.AllowInsecureAuth = true
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	srv.ErrorLog = log.New(io.Discard, "", 0) // a client hanging up is not worth a line
	return srv
}

// Messages returns the messages to the address (any, if to is ""), newest first.
func (s *Server) Messages(to string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Message{}
	for i := len(s.messages) - 1; i >= 0; i-- {
		if to == "" || strings.EqualFold(s.messages[i].To, to) {
			out = append(out, s.messages[i])
		}
	}
	return out
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.Messages(strings.TrimSpace(r.URL.Query().Get("to"))))
}

func (s *Server) reset(w http.ResponseWriter, _ *http.Request) {
	s.mu.Lock()
	s.messages = nil
	s.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// session is one SMTP conversation.
type session struct {
	srv    *Server
	authed bool
	from   string
	rcpts  []string
}

var errNeedAuth = gosmtp.ErrAuthRequired

func (c *session) AuthMechanisms() []string {
	if c.srv.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (c *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != c.srv.user || pass != c.srv.pass {
			return gosmtp.ErrAuthFailed
		}
		c.authed = true
		return nil
	}), nil
}

func (c *session) allowed() bool { return c.srv.user == "" || c.authed }

func (c *session) Mail(from string, _ *gosmtp.MailOptions) error {
	if !c.allowed() {
		return errNeedAuth
	}
	c.from = from
	return nil
}

func (c *session) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	if !c.allowed() {
		return errNeedAuth
	}
	if _, err := netmail.ParseAddress(to); err != nil {
		return &gosmtp.SMTPError{Code: 553, EnhancedCode: gosmtp.EnhancedCode{5, 1, 3}, Message: "bad recipient address"}
	}
	c.rcpts = append(c.rcpts, to)
	return nil
}

func (c *session) Data(r io.Reader) error {
	if !c.allowed() {
		return errNeedAuth
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	from, subject, text, err := parse(raw)
	if err != nil {
		return &gosmtp.SMTPError{Code: 554, EnhancedCode: gosmtp.EnhancedCode{5, 6, 0}, Message: "cannot read the message: " + err.Error()}
	}
	if from == "" {
		from = c.from
	}
	now := time.Now().UTC()
	c.srv.mu.Lock()
	for _, to := range c.rcpts {
		c.srv.messages = append(c.srv.messages, Message{To: to, From: from, Subject: subject, Text: text, ReceivedAt: now})
	}
	c.srv.mu.Unlock()
	return nil
}

func (c *session) Reset() { c.from, c.rcpts = "", nil }

func (c *session) Logout() error { return nil }

// parse reads the From address, the decoded subject and the text/plain body of a message.
func parse(raw []byte) (from, subject, text string, err error) {
	m, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return "", "", "", err
	}
	if a, err := m.Header.AddressList("From"); err == nil && len(a) > 0 {
		from = a[0].Address
	}
	dec := new(mime.WordDecoder)
	subject = m.Header.Get("Subject")
	if s, err := dec.DecodeHeader(subject); err == nil {
		subject = s
	}
	text, err = plainText(m.Header.Get("Content-Type"), m.Header.Get("Content-Transfer-Encoding"), m.Body)
	return from, subject, text, err
}

// plainText decodes a part's body, finding the first text/plain part of a multipart one.
func plainText(contentType, encoding string, body io.Reader) (string, error) {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if contentType == "" {
		mediaType, err = "text/plain", nil
	}
	if err != nil {
		return "", fmt.Errorf("content type %q: %w", contentType, err)
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return "", errors.New("no text/plain part")
			}
			if err != nil {
				return "", err
			}
			ct := p.Header.Get("Content-Type")
			if ct == "" || strings.HasPrefix(ct, "text/plain") || strings.HasPrefix(ct, "multipart/") {
				if t, err := plainText(ct, p.Header.Get("Content-Transfer-Encoding"), p); err == nil {
					return t, nil
				}
			}
		}
	}
	if mediaType != "text/plain" {
		return "", fmt.Errorf("content type %s is not text/plain", mediaType)
	}
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "quoted-printable":
		body = quotedprintable.NewReader(body)
	case "base64":
		body = base64.NewDecoder(base64.StdEncoding, body) // line breaks are skipped
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(strings.ReplaceAll(string(b), "\r\n", "\n"), "\n"), nil
}
