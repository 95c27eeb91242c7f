// Package jsoncall makes one call to a provider's JSON API, as the payment and voucher clients
// do: the request's body is JSON, the answer is read whole within a bound, and amounts are read
// from decimal JSON numbers exactly. What a status means is the caller's: each provider says it
// in its own errors.
package jsoncall

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/rewardsco/rewards/core/money"
)

// Answer is what the provider answered: its status and its body.
type Answer struct {
	Status int
	Body   []byte
}

// OK reports a 2xx status.
func (a Answer) OK() bool { return a.Status >= 200 && a.Status <= 299 }

// Failure is the answer taken for a failure: by provider ("cashfree", in the message) to the
// call method path, with kind what every failure of the provider is too (nil: nothing more).
// The code and message are those of the body ({"code": …, "message": …}); the message is the
// start of the body when it has none.
func (a Answer) Failure(provider, method, path string, kind error) *Failure {
	var p struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(a.Body, &p)
	if p.Message == "" {
		p.Message = Snippet(a.Body)
	}
	return &Failure{Provider: provider, Method: method, Path: path, Status: a.Status, Code: p.Code, Message: p.Message, Kind: kind}
}

// Failure is an answer taken for a failure: its status, and the code and message of its body.
type Failure struct {
	Provider, Method, Path string
	Status                 int
	Code, Message          string
	// Kind is what the failure is too (errors.Is), nil for nothing more.
	Kind error
}

func (e *Failure) Error() string {
	return fmt.Sprintf("%s: %s %s answered %d %s: %s", e.Provider, e.Method, e.Path, e.Status, e.Code, e.Message)
}

func (e *Failure) Unwrap() error { return e.Kind }

// StatusOf is the status of the Failure in err's chain, 0 when there is none.
func StatusOf(err error) int {
	var f *Failure
	if errors.As(err, &f) {
		return f.Status
	}
	return 0
}

// NoAnswer is a call that got no whole answer: none at all, or one cut short. Detail says which
// ("no answer", "answer 502 cut short"); Err is the cause.
type NoAnswer struct {
	Detail string
	Err    error
}

func (e *NoAnswer) Error() string { return e.Detail + ": " + e.Err.Error() }

func (e *NoAnswer) Unwrap() error { return e.Err }

// Do sends method url with in as its JSON body (none when in is nil) and header, and reads at
// most limit bytes of the answer. A call without a whole answer is a *NoAnswer; any other error
// is one of the request's own (in cannot be encoded, url is not one).
func Do(ctx context.Context, client *http.Client, method, url string, header http.Header, in any, limit int64) (Answer, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return Answer{}, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return Answer{}, err
	}
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return Answer{}, &NoAnswer{Detail: "no answer", Err: err}
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, limit))
	if err != nil {
		return Answer{Status: res.StatusCode}, &NoAnswer{Detail: fmt.Sprintf("answer %d cut short", res.StatusCode), Err: err}
	}
	return Answer{Status: res.StatusCode, Body: raw}, nil
}

// Snippet is the start of a body, trimmed, for an error message.
func Snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// Amount reads a decimal JSON number exactly, through its text and never a float: 10.15 is
// 1015. It refuses a negative number and an exponent.
func Amount(n json.Number) (money.Amount, error) {
	s := n.String()
	if s == "" || strings.ContainsAny(s, "eE+-") {
		return 0, fmt.Errorf("%q is not a non-negative decimal number", s)
	}
	return money.Parse(s)
}
