// Package stripe is a fake of the part of the Stripe API that adapters/payments/stripe speaks
// through stripe-go v76: Checkout Sessions, refunds, and signed webhook events. It is mounted
// under /stripe, so that stripe-go works with its API backend URL set to <fakes base>/stripe
// (stripe-go appends /v1/...). It keeps everything in memory.
//
// Authentication is the bearer key stripe-go sends. Without a key configured (WithSecretKey;
// FAKE_STRIPE_SECRET_KEY in fakes/cmd/fakes) any key is accepted, none is 401; with one,
// anything else is 401. Requests are form-encoded as Stripe's are; answers are Stripe's objects
// and errors are {error: {type, code, message, param}}. Every POST honours Idempotency-Key as
// Stripe does: the same key with the same method, path and parameters answers the first answer
// again (header Idempotent-Replayed: true); with other parameters it is 400 idempotency_error.
// An answer is kept for replay only when the request reached the endpoint (not a refusal of its
// parameters, not an answer forced by the behaviour).
//
//	POST /stripe/v1/checkout/sessions            mode=payment, line_items[i][price_data][currency|
//	                                             unit_amount|product_data][name]], line_items[i]
//	                                             [quantity], success_url, cancel_url?,
//	                                             client_reference_id?, customer_email?, expires_at?
//	                                             (any future time, unlike Stripe's 30 min–24 h, so
//	                                             that short TTLs can be tested; default 24 h),
//	                                             metadata[k]? → the Session, status open
//	GET  /stripe/v1/checkout/sessions/{id}       the Session; 404 resource_missing
//	POST /stripe/v1/checkout/sessions/{id}/expire
//	                                             an open Session becomes expired (and
//	                                             checkout.session.expired is sent); any other is 400
//	                                             invalid_request_error code session_not_open
//	POST /stripe/v1/refunds                      payment_intent, amount? (default: what is left),
//	                                             reason?, metadata[k]? → the Refund, status
//	                                             succeeded; 400 charge_already_refunded or
//	                                             amount_too_large beyond what is left
//	GET  /stripe/v1/refunds?payment_intent=      {object: list, data: [Refund], has_more: false}
//
//	Session {id: cs_test_…, object: checkout.session, amount_subtotal, amount_total, currency,
//	        client_reference_id, customer_email, created, expires_at, livemode: false, metadata,
//	        mode, payment_intent (pi_… once paid, else null), payment_status: unpaid|paid,
//	        status: open|complete|expired, success_url, cancel_url, url (the hosted page while
//	        open, else null as at Stripe)}
//	Refund  {id: re_…, object: refund, amount, currency, payment_intent, reason, metadata,
//	        status: succeeded, created}
//
// The hosted page acts for the payer. url is <base>/stripe/checkout/{id}, base being
// WithPublicURL or else the scheme and host the creating request came to.
//
//	GET  /stripe/checkout/{id}   a small HTML page with Pay and Cancel buttons
//	POST /stripe/checkout/{id}   form action=pay: the session becomes complete and paid with a new
//	                             payment intent, checkout.session.completed is sent, 303 to
//	                             success_url; action=cancel: the session expires,
//	                             checkout.session.expired is sent, 303 to cancel_url (success_url
//	                             without one). Paying a session that is not open is 409, unless
//	                             force=1 pays an expired one: a late capture the provider took
//	                             anyway (complete, paid, and the completed event after the expired
//	                             one).
//
// An open session whose expires_at has passed expires by itself (and its expired event is sent):
// at the next request that touches the fake, and by a sweep every second (WithSweepInterval).
//
// Events are {id: evt_…, object: event, api_version: APIVersion, created, livemode: false,
// pending_webhooks: 1, type, data: {object: Session}}, POSTed to <webhook target>/webhooks/stripe
// with header Stripe-Signature: t=<unix>,v1=<hex HMAC-SHA256(webhook secret, "<t>.<body>")>,
// signed afresh at every attempt, so that stripe-go's webhook.ConstructEvent accepts them. A
// non-2xx answer or a transport error is tried again, 5 tries 1 s apart unless WithWebhookRetries
// says otherwise. The target is WithWebhookTarget (FAKE_WEBHOOK_TARGET) or SetWebhookTarget;
// without one events are recorded and not sent.
//
//	POST /stripe/behaviour                {failNext?, failStatus?, status?, stallMs?,
//	                                      dropWebhooks?, holdWebhooks?}; {} resets
//	GET  /stripe/events                   every event, oldest first: {id, type, body, createdAt,
//	                                      delivered, dropped, held, attempts, lastStatus,
//	                                      lastError}
//	POST /stripe/events/{id}/resend       send one event again (a duplicate); answers once done
//	POST /stripe/webhooks/release         {"reverse": bool}: send the held events one after the
//	                                      other, newest first when reverse; answers once done
//
// Behaviour applies to the /stripe/v1 endpoints only: failNext makes the next n requests answer
// failStatus (default 500) without doing anything; status makes every other request answer that
// status without doing anything; stallMs holds every answer this long after the work is done.
// dropWebhooks records new events without sending them; holdWebhooks keeps them until released.
package stripe

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math/big"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rewardsco/rewards/fakes/internal/behave"
	"github.com/rewardsco/rewards/fakes/internal/outbox"
)

// APIVersion is the api_version of the events, the stripe.APIVersion of stripe-go v76 (whose
// webhook.ConstructEvent refuses any other); a test keeps them equal.
const APIVersion = "2023-10-16"

// DefaultWebhookSecret signs the events unless WithWebhookSecret says otherwise.
const DefaultWebhookSecret = "whsec_fake"

// SignatureHeader is the header that carries an event's signature.
const SignatureHeader = "Stripe-Signature"

// Session statuses and payment statuses.
const (
	StatusOpen     = "open"
	StatusComplete = "complete"
	StatusExpired  = "expired"
	Unpaid         = "unpaid"
	Paid           = "paid"
)

// Event types the fake sends.
const (
	EventSessionCompleted = "checkout.session.completed"
	EventSessionExpired   = "checkout.session.expired"
)

// Session is a Checkout Session as Stripe answers it.
type Session struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	AmountSubtotal    int64             `json:"amount_subtotal"`
	AmountTotal       int64             `json:"amount_total"`
	CancelURL         *string           `json:"cancel_url"`
	ClientReferenceID *string           `json:"client_reference_id"`
	Created           int64             `json:"created"`
	Currency          string            `json:"currency"`
	CustomerEmail     *string           `json:"customer_email"`
	ExpiresAt         int64             `json:"expires_at"`
	Livemode          bool              `json:"livemode"`
	Metadata          map[string]string `json:"metadata"`
	Mode              string            `json:"mode"`
	PaymentIntent     *string           `json:"payment_intent"`
	PaymentStatus     string            `json:"payment_status"`
	Status            string            `json:"status"`
	SuccessURL        string            `json:"success_url"`
	URL               *string           `json:"url"`
}

// Refund is a refund as Stripe answers it.
type Refund struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Amount        int64             `json:"amount"`
	Currency      string            `json:"currency"`
	PaymentIntent string            `json:"payment_intent"`
	Reason        *string           `json:"reason"`
	Metadata      map[string]string `json:"metadata"`
	Status        string            `json:"status"`
	Created       int64             `json:"created"`
}

// Error is the body of every error answer: {"error": ErrorBody}.
type Error struct {
	Error ErrorBody `json:"error"`
}

// ErrorBody says what went wrong, as Stripe does.
type ErrorBody struct {
	Type    string `json:"type"`
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
}

// Event is an event as the fake recorded it (GET /stripe/events).
type Event = outbox.Event

// Behaviour is how the fake answers; the zero value answers normally.
type Behaviour struct {
	// FailNext makes the next FailNext API requests answer FailStatus (default 500).
	FailNext   int `json:"failNext"`
	FailStatus int `json:"failStatus"`
	// Status, when set, is the answer to every API request.
	Status int `json:"status"`
	// StallMs holds every API answer this long.
	StallMs int `json:"stallMs"`
	// DropWebhooks records new events without sending them.
	DropWebhooks bool `json:"dropWebhooks"`
	// HoldWebhooks keeps new events until POST /stripe/webhooks/release.
	HoldWebhooks bool `json:"holdWebhooks"`
}

// Option configures a Provider.
type Option func(*Provider)

// WithSecretKey makes the fake accept only this bearer key; empty accepts any.
func WithSecretKey(key string) Option { return func(p *Provider) { p.secretKey = key } }

// WithWebhookSecret sets the secret the events are signed with (default DefaultWebhookSecret).
func WithWebhookSecret(secret string) Option {
	return func(p *Provider) {
		if secret != "" {
			p.webhookSecret = secret
		}
	}
}

// WithWebhookTarget sets the service's base URL the events go to (<target>/webhooks/stripe).
func WithWebhookTarget(url string) Option { return func(p *Provider) { p.target = url } }

// WithPublicURL sets the base URL of the hosted pages (default: the scheme and host of the
// request that created the session).
func WithPublicURL(base string) Option {
	return func(p *Provider) { p.publicURL = strings.TrimRight(base, "/") }
}

// WithWebhookRetries sets how many times an event is tried and how long apart (default 5, 1 s).
func WithWebhookRetries(tries int, backoff time.Duration) Option {
	return func(p *Provider) { p.tries, p.backoff = tries, backoff }
}

// WithSweepInterval sets how often sessions past expires_at are expired in the background
// (default 1 s; 0 leaves it to the next request).
func WithSweepInterval(d time.Duration) Option { return func(p *Provider) { p.sweep = d } }

// WithClock replaces time.Now, so that a test can move past expires_at without waiting.
func WithClock(now func() time.Time) Option { return func(p *Provider) { p.now = now } }

// session is a Session with what the hosted page shows.
type session struct {
	Session
	items []lineItem
}

type lineItem struct {
	Name      string
	UnitCents int64
	Quantity  int64
}

// intent is a payment intent made by paying a session.
type intent struct {
	id       string
	amount   int64
	currency string
	refunded int64
}

// stored is an answer kept for an idempotency key.
type stored struct {
	fingerprint string
	status      int
	body        []byte
}

// Provider is the fake. Use New; Close stops its background work.
type Provider struct {
	secretKey     string
	webhookSecret string
	target        string
	publicURL     string
	tries         int
	backoff       time.Duration
	sweep         time.Duration
	now           func() time.Time
	out           *outbox.Outbox
	stop          chan struct{}
	stopOnce      sync.Once

	mu        sync.Mutex
	sessions  map[string]*session
	order     []*session
	intents   map[string]*intent
	refunds   []*Refund
	idem      map[string]*stored
	behaviour Behaviour
}

// New returns a fake with no sessions; it starts the expiry sweep (see WithSweepInterval).
func New(opts ...Option) *Provider {
	p := &Provider{webhookSecret: DefaultWebhookSecret, tries: outbox.DefaultTries, backoff: outbox.DefaultBackoff,
		sweep: time.Second, now: time.Now, stop: make(chan struct{}),
		sessions: map[string]*session{}, intents: map[string]*intent{}, idem: map[string]*stored{}}
	for _, o := range opts {
		o(p)
	}
	p.out = outbox.New("/webhooks/stripe", p.sign, p.tries, p.backoff)
	p.out.SetTarget(p.target)
	if p.sweep > 0 {
		go p.sweepLoop()
	}
	return p
}

// Close stops the expiry sweep and the deliveries in progress.
func (p *Provider) Close() {
	p.stopOnce.Do(func() { close(p.stop) })
	p.out.Close()
}

// SetWebhookTarget sets the service's base URL the events go to; "" stops sending.
func (p *Provider) SetWebhookTarget(url string) { p.out.SetTarget(url) }

// SetBehaviour replaces the fake's behaviour, as POST /stripe/behaviour does.
func (p *Provider) SetBehaviour(b Behaviour) {
	p.mu.Lock()
	p.behaviour = b
	p.mu.Unlock()
	p.out.SetMode(b.DropWebhooks, b.HoldWebhooks)
}

// Events returns every event recorded, oldest first, as GET /stripe/events does.
func (p *Provider) Events() []Event {
	p.expireDue()
	return p.out.Events()
}

// Sign returns the Stripe-Signature header value for body signed with secret at t.
func Sign(secret string, body []byte, t time.Time) string {
	mac := hmac.New(sha256.New, []byte(secret))
	_, _ = fmt.Fprintf(mac, "%d.", t.Unix())
	mac.Write(body)
	return fmt.Sprintf("t=%d,v1=%s", t.Unix(), hex.EncodeToString(mac.Sum(nil)))
}

func (p *Provider) sign(body []byte, at time.Time) http.Header {
	return http.Header{SignatureHeader: {Sign(p.webhookSecret, body, at)}}
}

// Register adds the fake's routes to mux.
func (p *Provider) Register(mux *http.ServeMux) {
	mux.HandleFunc("POST /stripe/v1/checkout/sessions", p.api(p.createSession))
	mux.HandleFunc("GET /stripe/v1/checkout/sessions/{id}", p.api(p.getSession))
	mux.HandleFunc("POST /stripe/v1/checkout/sessions/{id}/expire", p.api(p.expireSession))
	mux.HandleFunc("POST /stripe/v1/refunds", p.api(p.createRefund))
	mux.HandleFunc("GET /stripe/v1/refunds", p.api(p.listRefunds))
	mux.HandleFunc("GET /stripe/checkout/{id}", p.page)
	mux.HandleFunc("POST /stripe/checkout/{id}", p.act)
	mux.HandleFunc("POST /stripe/behaviour", p.setBehaviour)
	p.out.Handlers(mux, "/stripe", p.expireDue)
}

// answer is what an API handler answers; keep says whether an idempotency key may replay it.
type answer struct {
	status int
	body   any
	keep   bool
}

func ok(body any) answer { return answer{http.StatusOK, body, true} }

func fail(status int, typ, code, param, format string, args ...any) answer {
	return answer{status, Error{ErrorBody{Type: typ, Code: code, Param: param, Message: fmt.Sprintf(format, args...)}}, true}
}

// invalid refuses a request's parameters: not kept for replay, as at Stripe.
func invalid(code, param, format string, args ...any) answer {
	a := fail(http.StatusBadRequest, "invalid_request_error", code, param, format, args...)
	a.keep = false
	return a
}

// api wraps an API handler with the behaviour, the key check, idempotency and the lock: the
// handlers run one at a time, under p.mu.
func (p *Provider) api(h func(*http.Request) answer) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		p.expireDue()
		p.mu.Lock()
		b := &p.behaviour
		forced, stall := behave.Decide(&b.FailNext, b.FailStatus, b.Status, b.StallMs)
		p.mu.Unlock()
		status, body, replayed := p.serve(r, h, forced)
		if !behave.Hold(r.Context(), stall) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Request-Id", "req_"+randomString(alnum, 14))
		if replayed {
			w.Header().Set("Idempotent-Replayed", "true")
		}
		w.WriteHeader(status)
		_, _ = w.Write(body)
	}
}

func (p *Provider) serve(r *http.Request, h func(*http.Request) answer, forced int) (status int, body []byte, replayed bool) {
	encode := func(a answer) (int, []byte, bool) {
		b, _ := json.Marshal(a.body)
		return a.status, append(b, '\n'), false
	}
	if forced != 0 {
		typ := "api_error"
		switch {
		case forced == http.StatusTooManyRequests:
			typ = "rate_limit_error"
		case forced < 500:
			typ = "invalid_request_error"
		}
		return encode(fail(forced, typ, "", "", "the fake was told to answer %d", forced))
	}
	if a, bad := p.authenticate(r); bad {
		return encode(a)
	}
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil {
			return encode(invalid("parameter_invalid", "", "the body must be form-encoded: %v", err))
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	key := strings.TrimSpace(r.Header.Get("Idempotency-Key"))
	if r.Method != http.MethodPost || key == "" {
		return encode(h(r))
	}
	fp := r.Method + " " + r.URL.Path + "?" + r.PostForm.Encode()
	if s := p.idem[key]; s != nil {
		if s.fingerprint != fp {
			return encode(fail(http.StatusBadRequest, "idempotency_error", "", "",
				"Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '%s' if you meant to execute a different request.", key))
		}
		return s.status, s.body, true
	}
	a := h(r)
	status, body, _ = encode(a)
	if a.keep {
		p.idem[key] = &stored{fingerprint: fp, status: status, body: body}
	}
	return status, body, false
}

// authenticate checks the bearer key; bad is true with the answer to give when it is wrong.
func (p *Provider) authenticate(r *http.Request) (answer, bool) {
	auth := r.Header.Get("Authorization")
	key, isBearer := strings.CutPrefix(auth, "Bearer ")
	if !isBearer {
		if u, _, basic := r.BasicAuth(); basic {
			key, isBearer = u, true
		}
	}
	switch {
	case !isBearer || strings.TrimSpace(key) == "":
		a := fail(http.StatusUnauthorized, "invalid_request_error", "", "", "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.")
		return a, true
	case p.secretKey != "" && key != p.secretKey:
		a := fail(http.StatusUnauthorized, "invalid_request_error", "", "", "Invalid API Key provided: %s", redact(key))
		return a, true
	}
	return answer{}, false
}

func redact(key string) string {
	if len(key) <= 8 {
		return strings.Repeat("*", len(key))
	}
	return key[:3] + strings.Repeat("*", len(key)-7) + key[len(key)-4:]
}

var currencyRE = regexp.MustCompile(`^[a-z]{3}$`)

func (p *Provider) createSession(r *http.Request) answer {
	f := r.PostForm
	now := p.now()
	if f.Get("mode") == "" {
		return invalid("parameter_missing", "mode", "Missing required param: mode.")
	}
	if f.Get("mode") != "payment" {
		return invalid("parameter_invalid_string", "mode", "The fake supports mode payment only, not %q.", f.Get("mode"))
	}
	if f.Get("success_url") == "" {
		return invalid("parameter_missing", "success_url", "Missing required param: success_url.")
	}
	var items []lineItem
	currency := ""
	for i := 0; ; i++ {
		pre := fmt.Sprintf("line_items[%d]", i)
		if !hasPrefix(f, pre) {
			break
		}
		c := strings.ToLower(f.Get(pre + "[price_data][currency]"))
		if !currencyRE.MatchString(c) {
			return invalid("parameter_missing", pre+"[price_data][currency]", "Missing required param: %s[price_data][currency].", pre)
		}
		if currency != "" && c != currency {
			return invalid("parameter_invalid_string", pre+"[price_data][currency]", "All line items must have the same currency.")
		}
		currency = c
		unit, err := strconv.ParseInt(f.Get(pre+"[price_data][unit_amount]"), 10, 64)
		if err != nil || unit < 0 {
			return invalid("parameter_invalid_integer", pre+"[price_data][unit_amount]", "Invalid non-negative integer: %s[price_data][unit_amount].", pre)
		}
		name := f.Get(pre + "[price_data][product_data][name]")
		if name == "" {
			return invalid("parameter_missing", pre+"[price_data][product_data][name]", "Missing required param: %s[price_data][product_data][name].", pre)
		}
		qty, err := strconv.ParseInt(f.Get(pre+"[quantity]"), 10, 64)
		if err != nil || qty < 1 {
			return invalid("parameter_invalid_integer", pre+"[quantity]", "Invalid positive integer: %s[quantity].", pre)
		}
		items = append(items, lineItem{Name: name, UnitCents: unit, Quantity: qty})
	}
	if len(items) == 0 {
		return invalid("parameter_missing", "line_items", "You must provide at least one line item in payment mode.")
	}
	expires := now.Add(24 * time.Hour).Unix()
	if s := f.Get("expires_at"); s != "" {
		t, err := strconv.ParseInt(s, 10, 64)
		if err != nil || t <= now.Unix() || t > now.Add(24*time.Hour).Unix()+60 {
			return invalid("parameter_invalid_integer", "expires_at", "expires_at must be a Unix time in the future and at most 24 hours ahead.")
		}
		expires = t
	}
	var total int64
	for _, it := range items {
		total += it.UnitCents * it.Quantity
	}
	id := "cs_test_" + randomString(alnum, 58)
	pageURL := p.base(r) + "/stripe/checkout/" + id
	s := &session{items: items, Session: Session{ID: id, Object: "checkout.session", AmountSubtotal: total, AmountTotal: total,
		CancelURL: optional(f.Get("cancel_url")), ClientReferenceID: optional(f.Get("client_reference_id")),
		Created: now.Unix(), Currency: currency, CustomerEmail: optional(f.Get("customer_email")), ExpiresAt: expires,
		Metadata: formMap(f, "metadata"), Mode: "payment", PaymentStatus: Unpaid, Status: StatusOpen,
		SuccessURL: f.Get("success_url"), URL: &pageURL}}
	p.sessions[id] = s
	p.order = append(p.order, s)
	return ok(s.Session)
}

func (p *Provider) getSession(r *http.Request) answer {
	s := p.sessions[r.PathValue("id")]
	if s == nil {
		return missing("checkout.session", r.PathValue("id"), "session")
	}
	return ok(s.Session)
}

func (p *Provider) expireSession(r *http.Request) answer {
	s := p.sessions[r.PathValue("id")]
	if s == nil {
		return missing("checkout.session", r.PathValue("id"), "session")
	}
	if s.Status != StatusOpen {
		return fail(http.StatusBadRequest, "invalid_request_error", "session_not_open", "",
			`Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "%s".`, s.Status)
	}
	p.expire(s)
	return ok(s.Session)
}

func (p *Provider) createRefund(r *http.Request) answer {
	f := r.PostForm
	pi := f.Get("payment_intent")
	if pi == "" {
		return invalid("parameter_missing", "payment_intent", "One of the following params should be provided for this request: payment_intent or charge.")
	}
	in := p.intents[pi]
	if in == nil {
		return missing("payment_intent", pi, "payment_intent")
	}
	left := in.amount - in.refunded
	amount := left
	if s := f.Get("amount"); s != "" {
		a, err := strconv.ParseInt(s, 10, 64)
		if err != nil || a < 1 {
			return invalid("parameter_invalid_integer", "amount", "Invalid positive integer: amount.")
		}
		amount = a
	}
	switch {
	case left == 0:
		return fail(http.StatusBadRequest, "invalid_request_error", "charge_already_refunded", "", "Charge for payment intent %s has already been refunded.", pi)
	case amount > left:
		return fail(http.StatusBadRequest, "invalid_request_error", "amount_too_large", "amount",
			"Refund amount (%d) is greater than unrefunded amount on charge (%d).", amount, left)
	}
	reason := f.Get("reason")
	if reason != "" && !slices.Contains([]string{"duplicate", "fraudulent", "requested_by_customer"}, reason) {
		return invalid("parameter_invalid_string", "reason", "Invalid reason: must be one of duplicate, fraudulent, or requested_by_customer.")
	}
	in.refunded += amount
	ref := &Refund{ID: "re_" + randomString(alnum, 24), Object: "refund", Amount: amount, Currency: in.currency,
		PaymentIntent: pi, Reason: optional(reason), Metadata: formMap(f, "metadata"), Status: "succeeded", Created: p.now().Unix()}
	p.refunds = append(p.refunds, ref)
	return ok(ref)
}

func (p *Provider) listRefunds(r *http.Request) answer {
	pi := r.URL.Query().Get("payment_intent")
	data := []*Refund{}
	for _, ref := range slices.Backward(p.refunds) {
		if pi == "" || ref.PaymentIntent == pi {
			data = append(data, ref)
		}
	}
	return ok(map[string]any{"object": "list", "data": data, "has_more": false, "url": "/v1/refunds"})
}

func missing(object, id, param string) answer {
	return fail(http.StatusNotFound, "invalid_request_error", "resource_missing", param, "No such %s: '%s'", object, id)
}

// expire ends an open session and sends its event. The caller holds p.mu.
func (p *Provider) expire(s *session) {
	s.Status, s.URL = StatusExpired, nil
	p.emit(EventSessionExpired, s)
}

// pay completes a session with a new payment intent and sends its event. The caller holds p.mu.
func (p *Provider) pay(s *session) {
	pi := "pi_" + randomString(alnum, 24)
	p.intents[pi] = &intent{id: pi, amount: s.AmountTotal, currency: s.Currency}
	s.Status, s.PaymentStatus, s.PaymentIntent, s.URL = StatusComplete, Paid, &pi, nil
	p.emit(EventSessionCompleted, s)
}

// emit records an event about s and hands it to the outbox. The caller holds p.mu.
func (p *Provider) emit(typ string, s *session) {
	id := "evt_" + randomString(alnum, 24)
	body, err := json.Marshal(map[string]any{"id": id, "object": "event", "api_version": APIVersion,
		"created": p.now().Unix(), "livemode": false, "pending_webhooks": 1, "type": typ,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": s.Session}})
	if err != nil {
		panic(err)
	}
	p.out.Add(id, typ, body)
}

// expireDue expires the open sessions whose expires_at has passed.
func (p *Provider) expireDue() {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.now().Unix()
	for _, s := range p.order {
		if s.Status == StatusOpen && s.ExpiresAt <= now {
			p.expire(s)
		}
	}
}

func (p *Provider) sweepLoop() {
	t := time.NewTicker(p.sweep)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.expireDue()
		}
	}
}

func (p *Provider) setBehaviour(w http.ResponseWriter, r *http.Request) {
	var b Behaviour
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<16)).Decode(&b); err != nil || b.FailNext < 0 || b.StallMs < 0 ||
		(b.Status != 0 && (b.Status < 100 || b.Status > 599)) || (b.FailStatus != 0 && (b.FailStatus < 100 || b.FailStatus > 599)) {
		writeJSON(w, http.StatusBadRequest, Error{ErrorBody{Type: "invalid_request_error",
			Message: "body must be {failNext?, failStatus?, status?, stallMs?, dropWebhooks?, holdWebhooks?} with valid numbers"}})
		return
	}
	p.SetBehaviour(b)
	writeJSON(w, http.StatusOK, b)
}

var pageTemplate = template.Must(template.New("page").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>Fake Stripe Checkout</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:3rem auto}button{font-size:1.1rem;padding:.5rem 1.5rem;margin-right:1rem}</style></head>
<body><h1>Fake Stripe Checkout</h1>
<p>Session <code>{{.ID}}</code>: <strong>{{.Status}}</strong>, {{.PaymentStatus}}</p>
<ul>{{range .Items}}<li>{{.Name}} × {{.Quantity}}</li>{{end}}</ul>
<p>Total: <strong>{{.Total}} {{.Currency}}</strong></p>
{{if .Open}}<form method="post"><button name="action" value="pay">Pay</button><button name="action" value="cancel">Cancel</button></form>
{{else}}<p>This session can no longer be paid.</p>{{end}}
</body></html>`))

func (p *Provider) page(w http.ResponseWriter, r *http.Request) {
	p.expireDue()
	p.mu.Lock()
	s := p.sessions[r.PathValue("id")]
	if s == nil {
		p.mu.Unlock()
		http.Error(w, "no such checkout session", http.StatusNotFound)
		return
	}
	data := map[string]any{"ID": s.ID, "Status": s.Status, "PaymentStatus": s.PaymentStatus, "Items": s.items,
		"Total": fmt.Sprintf("%d.%02d", s.AmountTotal/100, s.AmountTotal%100), "Currency": strings.ToUpper(s.Currency),
		"Open": s.Status == StatusOpen}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTemplate.Execute(w, data)
}

// act is the payer pressing Pay or Cancel on the hosted page.
func (p *Provider) act(w http.ResponseWriter, r *http.Request) {
	p.expireDue()
	if err := r.ParseForm(); err != nil {
		http.Error(w, "the form must be form-encoded", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	s := p.sessions[r.PathValue("id")]
	if s == nil {
		p.mu.Unlock()
		http.Error(w, "no such checkout session", http.StatusNotFound)
		return
	}
	force := r.PostForm.Get("force") == "1" || r.PostForm.Get("force") == "true"
	var to string
	switch action := r.PostForm.Get("action"); {
	case action == "pay" && (s.Status == StatusOpen || (s.Status == StatusExpired && force)):
		p.pay(s)
		to = s.SuccessURL
	case action == "pay":
		p.mu.Unlock()
		http.Error(w, fmt.Sprintf("this checkout session is %s and cannot be paid (force=1 pays an expired one)", s.Status), http.StatusConflict)
		return
	case action == "cancel" && s.Status == StatusOpen:
		p.expire(s)
		to = s.SuccessURL
		if s.CancelURL != nil {
			to = *s.CancelURL
		}
	case action == "cancel":
		p.mu.Unlock()
		http.Error(w, fmt.Sprintf("this checkout session is %s and cannot be cancelled", s.Status), http.StatusConflict)
		return
	default:
		p.mu.Unlock()
		http.Error(w, "action must be pay or cancel", http.StatusBadRequest)
		return
	}
	p.mu.Unlock()
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// base is the base URL of the hosted pages.
func (p *Provider) base(r *http.Request) string {
	if p.publicURL != "" {
		return p.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if s := r.Header.Get("X-Forwarded-Proto"); s == "http" || s == "https" {
		scheme = s
	}
	return scheme + "://" + r.Host
}

// hasPrefix reports whether the form has a key starting with prefix+"[".
func hasPrefix(f url.Values, prefix string) bool {
	for k := range f {
		if strings.HasPrefix(k, prefix+"[") {
			return true
		}
	}
	return false
}

// formMap reads name[k]=v pairs into a map (never nil, as Stripe's metadata is {}).
func formMap(f url.Values, name string) map[string]string {
	m := map[string]string{}
	for k, v := range f {
		if key, found := strings.CutPrefix(k, name+"["); found && strings.HasSuffix(key, "]") && len(v) > 0 {
			m[strings.TrimSuffix(key, "]")] = v[0]
		}
	}
	return m
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

func randomString(alphabet string, n int) string {
	b := make([]byte, n)
	max := big.NewInt(int64(len(alphabet)))
	for i := range b {
		k, err := rand.Int(rand.Reader, max)
		if err != nil {
			panic(err)
		}
		b[i] = alphabet[k.Int64()]
	}
	return string(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
