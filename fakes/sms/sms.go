// Package sms is a fake SMS gateway speaking the Twilio-style Messages API the service's SMS
// adapter uses, plus an inspection endpoint so tests read codes the way a phone would:
//
//	POST /2010-04-01/Accounts/{sid}/Messages.json   form To, From, Body; basic auth sid:token
//	GET  /sms/messages?to=<E.164>                   [{to, body, sentAt}], newest first
package sms

import (
	"encoding/json"
	"net/http"
	"regexp"
	"sync"
	"time"
)

// Message is one SMS the gateway accepted.
type Message struct {
	To     string    `json:"to"`
	From   string    `json:"from"`
	Body   string    `json:"body"`
	SentAt time.Time `json:"sentAt"`
}

// Gateway is the fake. The zero value is not usable; call New.
type Gateway struct {
	AccountSID string
	AuthToken  string

	mu       sync.Mutex
	messages []Message
}

// New returns a gateway accepting the given credentials.
func New(accountSID, authToken string) *Gateway {
	return &Gateway{AccountSID: accountSID, AuthToken: authToken}
}

var e164 = regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`)

// Register adds the gateway's routes to mux.
func (g *Gateway) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /2010-04-01/Accounts/{sid}/Messages.json", g.send)
	mux.HandleFunc("GET /sms/messages", g.list)
}

func (g *Gateway) send(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	if !ok || user != g.AccountSID || pass != g.AuthToken || r.PathValue("sid") != g.AccountSID {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"code": 20003, "message": "Authenticate", "status": 401})
		return
	}
	if err := r.ParseForm(); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 21600, "message": "bad form", "status": 400})
		return
	}
	m := Message{To: r.PostForm.Get("To"), From: r.PostForm.Get("From"), Body: r.PostForm.Get("Body"), SentAt: time.Now().UTC()}
	if !e164.MatchString(m.To) || m.Body == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"code": 21211, "message": "The 'To' number is not a valid phone number.", "status": 400})
		return
	}
	g.mu.Lock()
	g.messages = append(g.messages, m)
	n := len(g.messages)
	g.mu.Unlock()
	writeJSON(w, http.StatusCreated, map[string]any{"sid": "SM" + time.Now().Format("20060102150405") + itoa(n), "to": m.To, "from": m.From, "body": m.Body, "status": "queued"})
}

func (g *Gateway) list(w http.ResponseWriter, r *http.Request) {
	to := r.URL.Query().Get("to")
	g.mu.Lock()
	out := []Message{}
	for i := len(g.messages) - 1; i >= 0; i-- {
		if to == "" || g.messages[i].To == to {
			out = append(out, g.messages[i])
		}
	}
	g.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
