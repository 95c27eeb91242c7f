package consolepage

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/webhooks"
)

// deliveriesPageSize is how many deliveries a page lists.
const deliveriesPageSize = 20

// eventHelp says what each event type tells, beside its box in the form.
var eventHelp = map[string]string{
	"COINS_CREDITED":     "coins given to a player",
	"COINS_DEBITED":      "coins taken from a player",
	"COINS_REFUNDED":     "coins given back after a failed order",
	"ORDER_SUCCEEDED":    "a store or partner order delivered",
	"ORDER_FAILED":       "a store or partner order failed",
	"ORDER_REFUNDED":     "a partner order refunded",
	"PARTNER_WALLET_LOW": "a partner wallet fell under the threshold",
}

// webhookForm is the configuration form as typed.
type webhookForm struct {
	URL       string
	Events    []eventBox
	Threshold string
	Excluded  string
}

type eventBox struct {
	Name, Help string
	Checked    bool
}

func newWebhookForm(url string, events []string, threshold *money.Amount, excluded []string) webhookForm {
	f := webhookForm{URL: url, Excluded: strings.Join(excluded, "\n")}
	if threshold != nil {
		f.Threshold = threshold.String()
	}
	for _, e := range webhooks.EventTypes {
		f.Events = append(f.Events, eventBox{Name: e, Help: eventHelp[e], Checked: slices.Contains(events, e)})
	}
	return f
}

// configRow is a configuration as the pages show it (never its secret).
type configRow struct {
	ID             uuid.UUID
	URL            string
	Events         []string
	Excluded       []string
	Threshold      string
	Active         bool
	DisabledReason string
	MaskedSecret   string
	// PreviousUntil is when the secret a rotation replaced stops signing ("" when none does).
	PreviousUntil string
	Created       string
	Link          string
}

func (h *Handler) configRow(g *gameRef, c webhooks.Config) configRow {
	row := configRow{ID: c.ID, URL: c.URL, Events: c.SubscribedEvents, Excluded: c.ExcludedReasons, Active: c.IsActive,
		DisabledReason: c.DisabledReason, MaskedSecret: c.MaskedSecret(), Created: when(c.CreatedAt), Link: webhooksURL(g) + "/" + c.ID.String()}
	if c.PartnerWalletLowThreshold != nil {
		row.Threshold = c.PartnerWalletLowThreshold.String()
	}
	if c.PreviousExpiresAt != nil && c.PreviousExpiresAt.After(time.Now()) {
		row.PreviousUntil = when(c.PreviousExpiresAt)
	}
	return row
}

func envURL(g *gameRef) string { return Path + "/games/" + g.ID.String() + "/" + string(g.Env) }

func webhooksURL(g *gameRef) string { return envURL(g) + "/webhooks" }

// envName is an environment as the pages name it.
func envName(g *gameRef) string {
	if g.Env == "live" {
		return "live"
	}
	return "test"
}

// webhooksPage is the environment's configurations, their stats and the form of a new one.
type webhooksPage struct {
	EnvName    string
	MaxConfigs int
	Stats      webhooks.Stats
	Configs    []configRow
	Form       webhookForm
	// URLs of the page's links and forms.
	DeliveriesURL, CreateURL string
}

var webhooksForm = formPage[webhooksPage]{name: "webhooks_list.html", title: "Webhooks", load: (*Handler).webhooksPage}

func (h *Handler) webhooksPage(r *http.Request) (webhooksPage, error) {
	g, p := gameOf(r), principal(r)
	list, err := h.console.WebhookConfigs(r.Context(), p, g.ID, g.Env)
	if err != nil {
		return webhooksPage{}, err
	}
	stats, err := h.console.WebhookStats(r.Context(), p, g.ID, g.Env)
	if err != nil {
		return webhooksPage{}, err
	}
	page := webhooksPage{EnvName: envName(g), MaxConfigs: webhooks.MaxConfigs, Stats: stats,
		Form: newWebhookForm("", webhooks.CoinEventTypes, nil, nil), DeliveriesURL: webhooksURL(g) + "/deliveries", CreateURL: webhooksURL(g)}
	for _, c := range list {
		page.Configs = append(page.Configs, h.configRow(g, c))
	}
	return page, nil
}

// webhooksShow is GET …/webhooks.
func (h *Handler) webhooksShow(w http.ResponseWriter, r *http.Request) { webhooksForm.show(h, w, r) }

// parseWebhookForm reads the configuration form: what was typed, the change it asks for, and
// what is wrong with it in words (core checks the rest).
func parseWebhookForm(r *http.Request) (webhookForm, webhooks.Change, string) {
	events := r.PostForm["event"]
	excluded := []string{} // never null: the column is NOT NULL
	for _, line := range strings.Split(r.PostForm.Get("excludedReasons"), "\n") {
		if s := strings.TrimSpace(line); s != "" {
			excluded = append(excluded, s)
		}
	}
	u := field(r, "url")
	f := newWebhookForm(u, events, nil, excluded)
	f.Threshold = field(r, "partnerWalletLowThreshold")
	ch := webhooks.Change{URL: &u, SubscribedEvents: &events, ExcludedReasons: &excluded}
	if u == "" {
		return f, ch, "Enter the receiver's address: an https URL."
	}
	if len(events) == 0 {
		return f, ch, "Choose at least one event to send."
	}
	if f.Threshold != "" {
		a, err := money.Parse(strings.ReplaceAll(f.Threshold, ",", ""))
		if err != nil || a <= 0 {
			return f, ch, "The partner wallet low threshold is an amount above 0 with at most two decimals, such as 5000 or 5000.50."
		}
		ch.PartnerWalletLowThreshold = &a
	}
	return f, ch, ""
}

// webhookCreate is POST …/webhooks: a new configuration, whose signing secret the next page
// shows once. An address the studio already has updates that configuration instead (as
// /studio-webhooks/configure does), and its secret stays as it was.
func (h *Handler) webhookCreate(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, ok := webhooksForm.open(h, w, r)
	if !ok {
		return
	}
	f, ch, problem := parseWebhookForm(r)
	page.Form = f
	if problem != "" {
		webhooksForm.problem(h, w, r, http.StatusBadRequest, page, problem)
		return
	}
	c, created, err := h.console.ConfigureWebhook(r.Context(), principal(r), g.ID, g.Env, ch)
	if err != nil {
		webhooksForm.refused(h, w, r, err, page)
		return
	}
	if !created {
		h.redirect(w, r, webhooksURL(g)+"/"+c.ID.String(), "This address already had a configuration: it was updated, and its signing secret is unchanged.")
		return
	}
	noStore(w)
	h.render(w, r, http.StatusCreated, "webhooks_secret.html", "Signing secret", signingSecretPage{
		Heading: "Webhook configuration added", URL: c.URL, Next: webhooksURL(g) + "/" + c.ID.String(),
		Secret: secretView{ID: "signing-secret", Label: "Signing secret of " + c.URL, Value: c.Secret}})
}

// secretView is what the layout's "secret" template shows.
type secretView struct{ ID, Label, Value string }

// signingSecretPage shows a signing secret once: after a configuration is added, or after a
// rotation (Rotated), with the time the replaced secret stops signing (PreviousUntil).
type signingSecretPage struct {
	Heading       string
	URL           string
	Secret        secretView
	Rotated       bool
	PreviousUntil string
	Next          string
}

// configPage is one configuration: its facts and, for a DEVELOPER or OWNER, its forms.
type configPage struct {
	Config                 configRow
	Form                   webhookForm
	TestEvents             []string
	MaxGrace               int
	DefaultGrace           int
	MaxRecover             string
	RecoverSince           string
	BackURL, DeliveriesURL string
}

var configForm = formPage[configPage]{name: "webhooks_config.html", title: "Webhook configuration", load: (*Handler).configPage}

func (h *Handler) configPage(r *http.Request) (configPage, error) {
	g := gameOf(r)
	id, err := uuid.Parse(chi.URLParam(r, "configID"))
	if err != nil {
		return configPage{}, webhooks.ErrConfigNotFound
	}
	c, err := h.console.WebhookConfig(r.Context(), principal(r), g.ID, g.Env, id)
	if err != nil {
		return configPage{}, err
	}
	return configPage{Config: h.configRow(g, c), Form: newWebhookForm(c.URL, c.SubscribedEvents, c.PartnerWalletLowThreshold, c.ExcludedReasons),
		TestEvents: webhooks.CoinEventTypes, MaxGrace: int(webhooks.MaxGrace / time.Minute), DefaultGrace: int(webhooks.DefaultGrace / time.Minute),
		MaxRecover: thousands(webhooks.MaxRecover), RecoverSince: time.Now().UTC().Add(-24 * time.Hour).Format("2006-01-02T15:04"),
		BackURL: webhooksURL(g), DeliveriesURL: webhooksURL(g) + "/deliveries"}, nil
}

// webhookShow is GET …/webhooks/{configID}.
func (h *Handler) webhookShow(w http.ResponseWriter, r *http.Request) { configForm.show(h, w, r) }

// configAction loads the configuration page and reads the form of a POST to it; ok false when
// it answered already.
func (h *Handler) configAction(w http.ResponseWriter, r *http.Request) (configPage, uuid.UUID, bool) {
	page, ok := configForm.open(h, w, r)
	return page, page.Config.ID, ok
}

// webhookUpdate is POST …/webhooks/{configID}: the address, events, threshold and excluded
// reasons.
func (h *Handler) webhookUpdate(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, id, ok := h.configAction(w, r)
	if !ok {
		return
	}
	f, ch, problem := parseWebhookForm(r)
	page.Form = f
	if problem != "" {
		configForm.problem(h, w, r, http.StatusBadRequest, page, problem)
		return
	}
	if _, err := h.console.UpdateWebhook(r.Context(), principal(r), g.ID, g.Env, id, ch); err != nil {
		configForm.refused(h, w, r, err, page)
		return
	}
	h.redirect(w, r, webhooksURL(g)+"/"+id.String(), "Configuration saved.")
}

// webhookActive is POST …/webhooks/{configID}/active: active=true switches it on (clearing
// the auto-disable reason), false off.
func (h *Handler) webhookActive(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, id, ok := h.configAction(w, r)
	if !ok {
		return
	}
	on := field(r, "active") == "true"
	if _, err := h.console.UpdateWebhook(r.Context(), principal(r), g.ID, g.Env, id, webhooks.Change{IsActive: &on}); err != nil {
		configForm.refused(h, w, r, err, page)
		return
	}
	done := "Configuration switched off: nothing is sent to it until it is switched on."
	if on {
		done = "Configuration switched on: new events are sent to it."
	}
	h.redirect(w, r, webhooksURL(g)+"/"+id.String(), done)
}

// webhookTest is POST …/webhooks/{configID}/test: one synthetic event sent at once; the
// receiver's answer is the flash of the page it leads back to.
func (h *Handler) webhookTest(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, id, ok := h.configAction(w, r)
	if !ok {
		return
	}
	res, err := h.console.SendTestWebhook(r.Context(), principal(r), g.ID, g.Env, id, field(r, "eventType"))
	if err != nil {
		configForm.refused(h, w, r, err, page)
		return
	}
	h.redirect(w, r, webhooksURL(g)+"/"+id.String(), testWords(field(r, "eventType"), res))
}

// testWords says how a receiver answered a test event.
func testWords(event string, res webhooks.TestResult) string {
	ms := res.Duration.Milliseconds()
	if res.Delivered {
		return fmt.Sprintf("Test %s delivered: the receiver answered HTTP %d in %d ms.", event, derefInt(res.HTTPStatus), ms)
	}
	if res.HTTPStatus != nil {
		return fmt.Sprintf("Test %s not delivered: the receiver answered HTTP %d in %d ms.", event, *res.HTTPStatus, ms)
	}
	why := res.Error
	if why == "" {
		why = "no answer"
	}
	return fmt.Sprintf("Test %s not delivered after %d ms: %s.", event, ms, strings.TrimSuffix(why, "."))
}

func derefInt(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

// webhookRotate is POST …/webhooks/{configID}/rotate-secret: a new signing secret, shown once
// on the page it answers; the replaced one signs beside it for graceMinutes.
func (h *Handler) webhookRotate(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, id, ok := h.configAction(w, r)
	if !ok {
		return
	}
	grace, ok := intField(r, "graceMinutes", page.DefaultGrace)
	if !ok || grace < 0 || grace > page.MaxGrace {
		configForm.problem(h, w, r, http.StatusBadRequest, page,
			fmt.Sprintf("The grace is a whole number of minutes from 0 to %d (3 days).", page.MaxGrace))
		return
	}
	c, err := h.console.RotateWebhookSecret(r.Context(), principal(r), g.ID, g.Env, id, time.Duration(grace)*time.Minute)
	if err != nil {
		configForm.refused(h, w, r, err, page)
		return
	}
	sp := signingSecretPage{Heading: "Signing secret rotated", URL: c.URL, Rotated: true, Next: webhooksURL(g) + "/" + id.String(),
		Secret: secretView{ID: "signing-secret", Label: "New signing secret of " + c.URL, Value: c.Secret}}
	if grace > 0 && c.PreviousExpiresAt != nil {
		sp.PreviousUntil = when(c.PreviousExpiresAt)
	}
	noStore(w)
	h.render(w, r, http.StatusOK, "webhooks_secret.html", "Signing secret", sp)
}

// webhookRecover is POST …/webhooks/{configID}/recover: every FAILED delivery since a time
// goes out again, once.
func (h *Handler) webhookRecover(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, id, ok := h.configAction(w, r)
	if !ok {
		return
	}
	page.RecoverSince = field(r, "since")
	since, ok := parseTime(page.RecoverSince)
	if !ok {
		configForm.problem(h, w, r, http.StatusBadRequest, page,
			"Enter the time to recover from, such as 2026-01-15T00:00 (UTC).")
		return
	}
	n, err := h.console.RecoverWebhook(r.Context(), principal(r), g.ID, g.Env, id, since)
	if err != nil {
		configForm.refused(h, w, r, err, page)
		return
	}
	done := "No failed delivery to send again since " + when(since) + "."
	switch {
	case n == 1:
		done = "1 failed delivery is queued to go out again."
	case n >= webhooks.MaxRecover:
		done = thousands(n) + " failed deliveries are queued to go out again, the most one recover takes: recover again for the newer ones."
	case n > 1:
		done = strconv.Itoa(n) + " failed deliveries are queued to go out again."
	}
	h.redirect(w, r, webhooksURL(g)+"/deliveries", done)
}

// parseTime reads a time typed in a form: 2006-01-02T15:04 (datetime-local, with or without
// seconds), an RFC 3339 time, or a date; UTC unless it says otherwise.
func parseTime(s string) (time.Time, bool) {
	for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", time.RFC3339Nano, "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// webhookDelete is POST …/webhooks/{configID}/delete, once the box confirming it is ticked.
func (h *Handler) webhookDelete(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	page, id, ok := h.configAction(w, r)
	if !ok {
		return
	}
	if field(r, "confirm") != "yes" {
		configForm.problem(h, w, r, http.StatusBadRequest, page,
			"Tick the box to confirm the deletion: nothing was deleted.")
		return
	}
	if err := h.console.DeleteWebhook(r.Context(), principal(r), g.ID, g.Env, id); err != nil {
		configForm.refused(h, w, r, err, page)
		return
	}
	h.redirect(w, r, webhooksURL(g), "Configuration deleted, with its delivery records.")
}

// deliveriesPage is a page of the environment's deliveries, filtered.
type deliveriesPage struct {
	EnvName              string
	Status, EventType    string
	Statuses, EventTypes []string
	PageNo               int
	Total                int64
	From, To             int
	Rows                 []deliveryRow
	Prev, Next           string
	SelfURL, BackURL     string
}

type deliveryRow struct {
	ID, EventID                 uuid.UUID
	EventType, Status           string
	StatusClass                 string
	ConfigURL                   string
	Attempts                    int
	HTTPStatus                  int
	Error                       string
	Created, Attempted, NextTry string
	ResendURL                   string
}

var deliveryStatuses = []string{webhooks.StatusFailed, webhooks.StatusRetrying, webhooks.StatusPending, webhooks.StatusSuccess}

// deliveriesQuery is the filter of the deliveries page, from its query or a resend form.
type deliveriesQuery struct {
	Status, EventType string
	Page              int
}

func (q deliveriesQuery) encode() string {
	v := url.Values{}
	if q.Status != "" {
		v.Set("status", q.Status)
	}
	if q.EventType != "" {
		v.Set("eventType", q.EventType)
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	if len(v) == 0 {
		return ""
	}
	return "?" + v.Encode()
}

// readDeliveriesQuery reads the filter from get (a page's query or a form); values that are
// none of the choices count as no filter, pages start at 1 and end where skip would pass
// webhooks.MaxSkip.
func readDeliveriesQuery(get func(string) string) deliveriesQuery {
	q := deliveriesQuery{Status: get("status"), EventType: get("eventType")}
	if !slices.Contains(deliveryStatuses, q.Status) {
		q.Status = ""
	}
	if !slices.Contains(webhooks.EventTypes, q.EventType) {
		q.EventType = ""
	}
	q.Page, _ = strconv.Atoi(get("page"))
	q.Page = max(1, min(q.Page, webhooks.MaxSkip/deliveriesPageSize+1))
	return q
}

func (h *Handler) deliveriesPage(r *http.Request, q deliveriesQuery) (deliveriesPage, error) {
	g, p := gameOf(r), principal(r)
	page := deliveriesPage{EnvName: envName(g), Status: q.Status, EventType: q.EventType, Statuses: deliveryStatuses,
		EventTypes: webhooks.EventTypes, PageNo: q.Page, SelfURL: webhooksURL(g) + "/deliveries", BackURL: webhooksURL(g)}
	skip := (q.Page - 1) * deliveriesPageSize
	list, total, err := h.console.WebhookDeliveries(r.Context(), p, g.ID, g.Env,
		webhooks.DeliveryFilter{Status: q.Status, EventType: q.EventType, Limit: deliveriesPageSize, Skip: skip})
	if err != nil {
		return page, err
	}
	configs, err := h.console.WebhookConfigs(r.Context(), p, g.ID, g.Env)
	if err != nil {
		return page, err
	}
	urls := map[uuid.UUID]string{}
	for _, c := range configs {
		urls[c.ID] = c.URL
	}
	page.Total = total
	for _, d := range list {
		row := deliveryRow{ID: d.ID, EventID: d.EventID, EventType: d.EventType, Status: d.Status, StatusClass: statusClass(d.Status),
			ConfigURL: urls[d.ConfigID], Attempts: d.AttemptNumber, HTTPStatus: derefInt(d.HTTPStatusCode),
			Created: when(d.CreatedAt), Attempted: when(d.AttemptedAt), ResendURL: page.SelfURL + "/" + d.ID.String() + "/resend"}
		if d.ErrorMessage != nil {
			row.Error = *d.ErrorMessage
		}
		if d.NextRetryAt != nil {
			row.NextTry = when(d.NextRetryAt)
		}
		page.Rows = append(page.Rows, row)
	}
	if len(list) > 0 {
		page.From, page.To = skip+1, skip+len(list)
	}
	if q.Page > 1 {
		prev := q
		prev.Page--
		page.Prev = page.SelfURL + prev.encode()
	}
	if int64(skip+len(list)) < total && skip+deliveriesPageSize <= webhooks.MaxSkip {
		next := q
		next.Page++
		page.Next = page.SelfURL + next.encode()
	}
	return page, nil
}

// statusClass is the style of a status: ok, bad, or pending.
func statusClass(s string) string {
	switch s {
	case webhooks.StatusSuccess:
		return "ok"
	case webhooks.StatusFailed:
		return "bad"
	}
	return "pending"
}

// deliveriesShow is GET …/webhooks/deliveries?status=&eventType=&page=.
func (h *Handler) deliveriesShow(w http.ResponseWriter, r *http.Request) {
	page, err := h.deliveriesPage(r, readDeliveriesQuery(r.URL.Query().Get))
	if err != nil {
		h.failOrMissing(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "webhooks_deliveries.html", "Webhook deliveries", page)
}

// deliveryResend is POST …/webhooks/deliveries/{deliveryID}/resend: the delivery's event goes
// out again as a new delivery; back to the list as it was filtered (the form's status,
// eventType and page).
func (h *Handler) deliveryResend(w http.ResponseWriter, r *http.Request) {
	g := gameOf(r)
	if !h.readForm(w, r, "Resend") {
		return
	}
	q := readDeliveriesQuery(r.PostForm.Get)
	id, err := uuid.Parse(chi.URLParam(r, "deliveryID"))
	if err != nil {
		err = webhooks.ErrDeliveryNotFound
	} else {
		var newID uuid.UUID
		if newID, err = h.console.ResendDelivery(r.Context(), principal(r), g.ID, g.Env, id); err == nil {
			h.redirect(w, r, webhooksURL(g)+"/deliveries"+q.encode(), "Delivery queued again: the new delivery is "+newID.String()+".")
			return
		}
	}
	page, perr := h.deliveriesPage(r, q)
	if perr != nil {
		h.failOrMissing(w, r, perr)
		return
	}
	h.refused(w, r, err, "webhooks_deliveries.html", "Webhook deliveries", page)
}

// thousands writes n with thousands separators: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
