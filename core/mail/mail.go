// Package mail is the port through which the core sends email: invitations, password resets and
// notices to a studio's owners. The adapters are in adapters/mail (SMTP, and a log for local
// runs); fakes/smtp is an SMTP server with an inbox for the e2e suites.
package mail

import "context"

// Message is one plain-text email to one recipient.
type Message struct {
	To      string
	Subject string
	Text    string
}

// Sender sends email. Send returns once the message is accepted for delivery; an error means it
// was not, and the caller decides whether that fails its use case.
type Sender interface {
	Send(ctx context.Context, m Message) error
}
