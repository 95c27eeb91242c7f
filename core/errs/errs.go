// Package errs is the one vocabulary of errors the core modules speak: every error a client may
// see is an *Error with a Kind, which the HTTP layer maps to a status in one place, and a stable
// machine Code in UPPER_SNAKE_CASE. Anything else is an internal error: it is logged, and the
// client learns nothing about it.
//
// A module declares its errors once, as sentinels:
//
//	var ErrCoinNotFound = errs.New(errs.NotFound, "COIN_NOT_FOUND", "coin not found")
//
// and returns them, or a variant with a more precise message (ErrCoinNotFound.Withf(...)),
// wrapped with context as usual. errors.Is matches a variant to its sentinel by code.
package errs

import (
	"errors"
	"fmt"
	"sync"
	"time"
)

// Kind is the class of an error, which decides its HTTP status.
type Kind uint8

// The kinds of error.
const (
	// Internal is a failure of ours (a bug, the database went away mid-request). It is the kind
	// of every error that is not an *Error.
	Internal Kind = iota
	// Invalid means the request breaks a rule: bad input, or a business refusal such as an
	// insufficient balance (400).
	Invalid
	// Unauthorized means the caller's credentials are missing or wrong (401).
	Unauthorized
	// Forbidden means the caller is known but may not do this (403).
	Forbidden
	// NotFound means the thing named does not exist for this caller (404).
	NotFound
	// Conflict means the request collides with the current state or with a request in flight
	// (409).
	Conflict
	// Unprocessable means the request is well formed but contradicts an earlier one, such as an
	// idempotency key reused with another body (422).
	Unprocessable
	// RateLimited means the caller must wait; RetryAfter says how long (429).
	RateLimited
	// Upstream means an outside system we depend on failed (502).
	Upstream
	// Unavailable means we cannot serve right now, for example the database is unreachable;
	// RetryAfter says when to try again (503).
	Unavailable
)

var kindNames = [...]string{"internal", "invalid", "unauthorized", "forbidden", "not found", "conflict",
	"unprocessable", "rate limited", "upstream", "unavailable"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Error is a coded error: what a client may be told.
type Error struct {
	Kind Kind
	// Code is stable and machine-readable, UPPER_SNAKE_CASE.
	Code string
	// Message is for a person; it never carries internal detail.
	Message string
	// RetryAfter, when positive, is how long the client should wait before trying again.
	RetryAfter time.Duration
}

// New returns a coded error; modules declare their sentinels with it.
func New(kind Kind, code, message string) *Error {
	declared.LoadOrStore(code, kind)
	return &Error{Kind: kind, Code: code, Message: message}
}

// declared holds the kind of every code New has made (code → Kind): the sentinels of every
// module linked into the program, since they are made when their packages initialise.
var declared sync.Map

// Declared returns every code declared with New so far, with its kind: the vocabulary the
// OpenAPI documents draw each operation's error codes from.
func Declared() map[string]Kind {
	out := map[string]Kind{}
	declared.Range(func(code, kind any) bool {
		out[code.(string)] = kind.(Kind)
		return true
	})
	return out
}

// Error implements error with the message alone.
func (e *Error) Error() string { return e.Message }

// Is makes errors.Is match any *Error with the same code, so that a variant made by Withf or
// WithRetryAfter still matches its sentinel.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Withf returns a copy of e with another message.
func (e *Error) Withf(format string, args ...any) *Error {
	c := *e
	c.Message = fmt.Sprintf(format, args...)
	return &c
}

// WithRetryAfter returns a copy of e that tells the client to wait d.
func (e *Error) WithRetryAfter(d time.Duration) *Error {
	c := *e
	c.RetryAfter = d
	return &c
}

// ErrInvalid is the sentinel of every input validation failure; Invalidf makes its variants.
var ErrInvalid = New(Invalid, "VALIDATION_FAILED", "invalid input")

// Invalidf returns a validation failure with a message saying what is wrong.
func Invalidf(format string, args ...any) *Error { return ErrInvalid.Withf(format, args...) }

// As returns the coded error in err's chain, if there is one.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// KindOf returns the kind of err: Internal unless its chain holds an *Error.
func KindOf(err error) Kind {
	if e, ok := As(err); ok {
		return e.Kind
	}
	return Internal
}

// CodeOf returns the code of err, or "" for an internal error.
func CodeOf(err error) string {
	if e, ok := As(err); ok {
		return e.Code
	}
	return ""
}
