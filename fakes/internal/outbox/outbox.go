// Package outbox keeps the webhooks a payment fake (fakes/stripe, fakes/cashfree) sends and
// delivers them the way a provider does: signed at each attempt, POSTed to the service, retried
// on a non-2xx answer or a transport error. It also does what a provider does on a bad day, on
// demand: it can drop events (recorded, never sent), hold them until released (then send them in
// order or newest first), and send one again (a duplicate).
//
// It is internal to fakes/ so that the two payment fakes share one delivery engine and the
// service's code never sees it.
package outbox

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of delivery.
const (
	DefaultTries   = 5
	DefaultBackoff = time.Second
)

// Event is an event as the outbox holds it, what GET /<fake>/events lists.
type Event struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	// Body is the event exactly as sent.
	Body      json.RawMessage `json:"body"`
	CreatedAt time.Time       `json:"createdAt"`
	// Delivered is true once an attempt was answered 2xx.
	Delivered bool `json:"delivered"`
	// Dropped: recorded while dropWebhooks was on; never sent unless resent.
	Dropped bool `json:"dropped"`
	// Held: recorded while holdWebhooks was on and not released yet.
	Held bool `json:"held"`
	// Attempts counts every POST made for the event, resends included.
	Attempts   int    `json:"attempts"`
	LastStatus int    `json:"lastStatus,omitempty"`
	LastError  string `json:"lastError,omitempty"`

	sign Signer
}

// Signer gives the headers that sign one attempt to deliver body at time at (a provider signs
// every attempt afresh, so a retried event carries a fresh timestamp).
type Signer func(body []byte, at time.Time) http.Header

// Outbox is the store and sender of one fake's events. Use New.
type Outbox struct {
	path    string
	sign    Signer
	client  *http.Client
	tries   int
	backoff time.Duration
	done    chan struct{}
	wg      sync.WaitGroup

	mu     sync.Mutex
	target string
	drop   bool
	hold   bool
	events []*Event
	byID   map[string]*Event
}

// New returns an outbox that POSTs to target+path (path such as "/webhooks/stripe"), each
// attempt signed by sign (unless the event brings its own signer), tried up to tries times (DefaultTries when < 1) backoff apart
// (DefaultBackoff when < 0; 0 retries at once).
func New(path string, sign Signer, tries int, backoff time.Duration) *Outbox {
	if tries < 1 {
		tries = DefaultTries
	}
	if backoff < 0 {
		backoff = DefaultBackoff
	}
	return &Outbox{path: path, sign: sign, tries: tries, backoff: backoff, client: &http.Client{Timeout: 10 * time.Second},
		done: make(chan struct{}), byID: map[string]*Event{}}
}

// SetTarget sets the service's base URL the events go to; "" sends nothing (events are still
// recorded, with LastError saying why they were not sent).
func (o *Outbox) SetTarget(url string) {
	o.mu.Lock()
	o.target = strings.TrimRight(url, "/")
	o.mu.Unlock()
}

// SetMode sets whether new events are dropped or held. Turning hold off does not release what
// is held: Release does.
func (o *Outbox) SetMode(drop, hold bool) {
	o.mu.Lock()
	o.drop, o.hold = drop, hold
	o.mu.Unlock()
}

// Add records an event and, unless events are dropped or held, delivers it in the background
// (each event on its own, as a provider does: two events may arrive in either order).
func (o *Outbox) Add(id, typ string, body []byte) { o.AddSigned(id, typ, body, nil) }

// AddSigned is Add with the event's own signer (nil: the outbox's), for a provider that signs
// with a secret of the merchant the event concerns.
func (o *Outbox) AddSigned(id, typ string, body []byte, sign Signer) {
	o.mu.Lock()
	e := &Event{ID: id, Type: typ, Body: slices.Clone(body), CreatedAt: time.Now().UTC(), Dropped: o.drop, Held: o.hold && !o.drop, sign: sign}
	o.events = append(o.events, e)
	o.byID[id] = e
	send := !e.Dropped && !e.Held
	o.mu.Unlock()
	if send {
		o.wg.Add(1)
		go func() {
			defer o.wg.Done()
			o.deliver(e)
		}()
	}
}

// Events returns a copy of every event, oldest first.
func (o *Outbox) Events() []Event {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]Event, 0, len(o.events))
	for _, e := range o.events {
		out = append(out, *e)
	}
	return out
}

// Resend delivers one event again (with retries), whether or not it was delivered before, and
// returns it as it then is; false when there is no such event. It waits for the delivery.
func (o *Outbox) Resend(id string) (Event, bool) {
	o.mu.Lock()
	e := o.byID[id]
	if e != nil {
		e.Held = false
	}
	o.mu.Unlock()
	if e == nil {
		return Event{}, false
	}
	o.deliver(e)
	o.mu.Lock()
	defer o.mu.Unlock()
	return *e, true
}

// Release sends every held event, one after the other (each with its retries), oldest first or
// newest first when reverse, and returns them as they then are. It waits for the deliveries.
func (o *Outbox) Release(reverse bool) []Event {
	o.mu.Lock()
	var held []*Event
	for _, e := range o.events {
		if e.Held {
			e.Held = false
			held = append(held, e)
		}
	}
	o.mu.Unlock()
	if reverse {
		slices.Reverse(held)
	}
	out := make([]Event, 0, len(held))
	for _, e := range held {
		o.deliver(e)
		o.mu.Lock()
		out = append(out, *e)
		o.mu.Unlock()
	}
	return out
}

// Close stops retries in progress and waits for background deliveries to end.
func (o *Outbox) Close() {
	o.mu.Lock()
	select {
	case <-o.done:
	default:
		close(o.done)
	}
	o.mu.Unlock()
	o.wg.Wait()
}

// deliver tries to send e until one attempt is answered 2xx or the tries are spent.
func (o *Outbox) deliver(e *Event) {
	for try := 1; try <= o.tries; try++ {
		if try > 1 {
			select {
			case <-time.After(o.backoff):
			case <-o.done:
				return
			}
		}
		if o.attempt(e) {
			return
		}
	}
}

// attempt makes one POST; it reports whether it was answered 2xx.
func (o *Outbox) attempt(e *Event) bool {
	o.mu.Lock()
	target := o.target
	if target == "" {
		e.LastError = "no webhook target set"
		o.mu.Unlock()
		return false
	}
	e.Attempts++
	sign := e.sign
	if sign == nil {
		sign = o.sign
	}
	o.mu.Unlock()
	status, err := o.post(target+o.path, e.Body, sign)
	o.mu.Lock()
	defer o.mu.Unlock()
	e.LastStatus, e.LastError = status, ""
	if err != nil {
		e.LastError = err.Error()
		return false
	}
	if status < 200 || status > 299 {
		e.LastError = fmt.Sprintf("answered %d", status)
		return false
	}
	e.Delivered = true
	return true
}

func (o *Outbox) post(url string, body []byte, sign Signer) (int, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-o.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, vs := range sign(body, time.Now()) {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := o.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	return res.StatusCode, nil
}

// Handlers serves the inspection and disorder endpoints under prefix (such as "/stripe"):
//
//	GET  {prefix}/events                every event, oldest first ([Event])
//	POST {prefix}/events/{id}/resend    send one again → the Event; 404 when unknown
//	POST {prefix}/webhooks/release      {"reverse": bool} → the released events, in sending order
func (o *Outbox) Handlers(mux *http.ServeMux, prefix string, before func()) {
	mux.HandleFunc("GET "+prefix+"/events", func(w http.ResponseWriter, _ *http.Request) {
		before()
		writeJSON(w, http.StatusOK, o.Events())
	})
	mux.HandleFunc("POST "+prefix+"/events/{id}/resend", func(w http.ResponseWriter, r *http.Request) {
		before()
		e, ok := o.Resend(r.PathValue("id"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "no event " + r.PathValue("id")})
			return
		}
		writeJSON(w, http.StatusOK, e)
	})
	mux.HandleFunc("POST "+prefix+"/webhooks/release", func(w http.ResponseWriter, r *http.Request) {
		before()
		var in struct {
			Reverse bool `json:"reverse"`
		}
		if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&in); err != nil && err != io.EOF {
			writeJSON(w, http.StatusBadRequest, map[string]string{"message": `body must be {"reverse": true|false}`})
			return
		}
		writeJSON(w, http.StatusOK, o.Release(in.Reverse))
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
