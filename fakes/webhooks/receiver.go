// Package webhooks is a fake webhook receiver: it records every request it receives and can be
// told to fail, answer a given status, or stall. Receivers are separated by channel so that
// several tests can share one fake.
//
//	POST /hooks/{channel}            receive a webhook (answers per the channel's behaviour)
//	GET  /webhooks/received          [{channel, headers, body, receivedAt, answeredStatus}], oldest
//	                                 first; ?channel= narrows to one channel
//	POST /webhooks/behaviour         {channel?, failNext?, failStatus?, status?, stallMs?}
//	DELETE /webhooks/received        forget what was received (?channel= for one channel)
package webhooks

import (
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/rewardsco/rewards/fakes/internal/behave"
)

// Received is one request the receiver got.
type Received struct {
	Channel        string            `json:"channel"`
	Headers        map[string]string `json:"headers"`
	Body           string            `json:"body"`
	ReceivedAt     time.Time         `json:"receivedAt"`
	AnsweredStatus int               `json:"answeredStatus"`
}

// Behaviour is how a channel answers.
type Behaviour struct {
	Channel string `json:"channel"`
	// FailNext makes the next N requests fail with FailStatus (default 500).
	FailNext   int `json:"failNext"`
	FailStatus int `json:"failStatus"`
	// Status answers every other request (default 200).
	Status int `json:"status"`
	// StallMs holds every request this long before answering.
	StallMs int `json:"stallMs"`
}

// Receiver is the fake. Use New.
type Receiver struct {
	mu        sync.Mutex
	received  []Received
	behaviour map[string]*Behaviour
}

// New returns an empty receiver that answers 200.
func New() *Receiver { return &Receiver{behaviour: map[string]*Behaviour{}} }

// Register adds the receiver's routes to mux.
func (rc *Receiver) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /hooks/{channel}", rc.receive)
	mux.HandleFunc("GET /webhooks/received", rc.list)
	mux.HandleFunc("DELETE /webhooks/received", rc.reset)
	mux.HandleFunc("POST /webhooks/behaviour", rc.setBehaviour)
}

func (rc *Receiver) receive(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	channel := r.PathValue("channel")
	rc.mu.Lock()
	b := rc.behaviour[channel]
	status, stall := http.StatusOK, time.Duration(0)
	if b != nil {
		var forced int
		if forced, stall = behave.Decide(&b.FailNext, b.FailStatus, b.Status, b.StallMs); forced != 0 {
			status = forced
		}
	}
	headers := map[string]string{}
	for k := range r.Header {
		headers[k] = r.Header.Get(k)
	}
	rc.received = append(rc.received, Received{Channel: channel, Headers: headers, Body: string(body), ReceivedAt: time.Now().UTC(), AnsweredStatus: status})
	rc.mu.Unlock()
	if !behave.Hold(r.Context(), stall) {
		return
	}
	w.WriteHeader(status)
}

func (rc *Receiver) list(w http.ResponseWriter, r *http.Request) {
	channel := r.URL.Query().Get("channel")
	rc.mu.Lock()
	out := []Received{}
	for _, x := range rc.received {
		if channel == "" || x.Channel == channel {
			out = append(out, x)
		}
	}
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func (rc *Receiver) reset(w http.ResponseWriter, r *http.Request) {
	channel := r.URL.Query().Get("channel")
	rc.mu.Lock()
	kept := rc.received[:0]
	for _, x := range rc.received {
		if channel != "" && x.Channel != channel {
			kept = append(kept, x)
		}
	}
	rc.received = kept
	rc.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

func (rc *Receiver) setBehaviour(w http.ResponseWriter, r *http.Request) {
	var b Behaviour
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil || b.FailNext < 0 || b.StallMs < 0 ||
		(b.Status != 0 && (b.Status < 100 || b.Status > 599)) || (b.FailStatus != 0 && (b.FailStatus < 100 || b.FailStatus > 599)) {
		http.Error(w, `{"message":"body must be {channel?, failNext?, failStatus?, status?, stallMs?} with valid numbers"}`, http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	rc.behaviour[b.Channel] = &b
	rc.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(b)
}
