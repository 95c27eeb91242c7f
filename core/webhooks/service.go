package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// Options configure the Service.
type Options struct {
	// SecretKey (32 bytes) seals signing secrets at rest.
	SecretKey []byte
	// RetryDelays are the waits after failed attempts 1 to MaxAttempts-1.
	RetryDelays []time.Duration
	Transport   Transport
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Audit records each change of a configuration and each resend, recover and test
	// (audit.Log), in the change's transaction; it must be on the same storage. Required.
	Audit *audit.Log
	// Notifier, when set, tells a studio's owners that the auto-disable rule switched one of
	// their configurations off, once that has committed.
	Notifier Notifier
	// Log records what fails after a change committed (a notification); nil discards.
	Log *slog.Logger
}

// Service holds the webhook use cases.
type Service struct {
	store store.Of[Repo]
	box   sealed.Box
	opts  Options
	now   func() time.Time
	slots *slots
}

// NewService returns a Service over the webhooks module's storage.
func NewService(st store.Of[Repo], opts Options) (*Service, error) {
	box, err := sealed.New(opts.SecretKey)
	if err != nil {
		return nil, err
	}
	if len(opts.RetryDelays) == 0 {
		opts.RetryDelays = DefaultRetryDelays
	}
	if len(opts.RetryDelays) < MaxAttempts-1 {
		return nil, fmt.Errorf("need %d retry delays, got %d", MaxAttempts-1, len(opts.RetryDelays))
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	if opts.Audit == nil {
		return nil, errors.New("webhooks: Options.Audit is required: every change is audited")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: st, box: box, opts: opts, now: now, slots: newSlots(MaxInFlight)}, nil
}

// ScopeOf is the scope of a caller: the studio of its key, the environment of its host. A
// studioID the caller names must be its own.
func ScopeOf(c studio.Caller, studioID string) (Scope, error) {
	if studioID != "" {
		if id, err := uuid.Parse(studioID); err != nil || id != c.StudioID {
			return Scope{}, ErrStudioMismatch
		}
	}
	return Scope{StudioID: c.StudioID, Environment: c.Environment}, nil
}

func (s *Service) validate(c *Config) error {
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") || u.User != nil || len(c.URL) > 2048 {
		return invalid("webhookUrl must be an absolute https URL without credentials, at most 2048 characters")
	}
	if err := s.opts.Transport.CheckURL(c.URL); err != nil {
		return invalid("webhookUrl: %v", err)
	}
	if len(c.SubscribedEvents) == 0 {
		return invalid("subscribedEvents must name at least one of %v", EventTypes)
	}
	for _, e := range c.SubscribedEvents {
		if !slices.Contains(EventTypes, e) {
			return invalid("subscribedEvents: %q is not one of %v", e, EventTypes)
		}
	}
	slices.Sort(c.SubscribedEvents)
	c.SubscribedEvents = slices.Compact(c.SubscribedEvents)
	if t := c.PartnerWalletLowThreshold; t != nil && (*t <= 0 || *t > MaxWalletLowThreshold) {
		return invalid("partnerWalletLowThreshold must be more than 0 and at most %s", MaxWalletLowThreshold)
	}
	if slices.Contains(c.SubscribedEvents, PartnerWalletLow) && c.PartnerWalletLowThreshold == nil {
		return invalid("subscribing to %s needs partnerWalletLowThreshold: the balance under which it is sent", PartnerWalletLow)
	}
	if len(c.ExcludedReasons) > 50 {
		return invalid("excludedReasons holds at most 50 reasons")
	}
	for _, r := range c.ExcludedReasons {
		if r == "" || len(r) > 64 {
			return invalid("excludedReasons: each reason is 1 to 64 characters")
		}
	}
	return nil
}

// Configure creates the scope's configuration for the URL, or updates the one that has it. The
// created flag tells which; only a created configuration carries its plaintext secret. A scope
// holds at most MaxConfigs configurations: creating one more is ErrConfigLimit, and creates
// nothing.
func (s *Service) Configure(ctx context.Context, sc Scope, ch Change) (Config, bool, error) {
	if ch.URL == nil || ch.SubscribedEvents == nil {
		return Config{}, false, invalid("webhookUrl and subscribedEvents are required")
	}
	existing, err := s.store.Repo().GetConfigByURL(ctx, sc, *ch.URL)
	if err == nil {
		c, err := s.Update(ctx, sc, existing.ID, ch)
		return c, false, err
	}
	if !errors.Is(err, ErrConfigNotFound) {
		return Config{}, false, err
	}
	c := Config{StudioID: sc.StudioID, Environment: sc.Environment, URL: *ch.URL, SubscribedEvents: *ch.SubscribedEvents,
		ExcludedReasons: []string{}, IsActive: true}
	if ch.ExcludedReasons != nil {
		c.ExcludedReasons = *ch.ExcludedReasons
	}
	if ch.IsActive != nil {
		c.IsActive = *ch.IsActive
	}
	c.PartnerWalletLowThreshold = ch.PartnerWalletLowThreshold
	if err := s.validate(&c); err != nil {
		return Config{}, false, err
	}
	c.Secret = newSigningSecret()
	c.Sealed, c.SecretLast4 = s.box.Seal(c.Secret), c.Secret[len(c.Secret)-4:]
	c.ActiveSince = s.now()
	var out Config
	var created bool
	err = s.opts.Audit.InTx(ctx, func(tx store.Tx) error {
		r := s.store.WithTx(tx)
		// Counted under the scope's lock: two configures racing for the last place cannot both
		// see room for one more.
		if err := r.LockScope(ctx, sc); err != nil {
			return err
		}
		list, err := r.ListConfigs(ctx, sc)
		if err != nil {
			return err
		}
		for _, e := range list {
			if e.URL == c.URL { // a concurrent configure of the same URL won: update that one
				out, created = e, false
				return nil
			}
		}
		if len(list) >= MaxConfigs {
			return ErrConfigLimit
		}
		if out, created, err = r.InsertConfig(ctx, c); err != nil || !created {
			return err
		}
		return s.opts.Audit.Record(ctx, tx, configEntry(sc, out.ID, "webhook_config.create", configDetails(out)))
	})
	if err != nil {
		return Config{}, false, err
	}
	if !created { // the URL was taken meanwhile (a configure or an update): update that one
		c, err := s.Update(ctx, sc, out.ID, ch)
		return c, false, err
	}
	out.Secret = c.Secret
	return out, true, nil
}

// List returns the scope's configurations.
func (s *Service) List(ctx context.Context, sc Scope) ([]Config, error) {
	return s.store.Repo().ListConfigs(ctx, sc)
}

// Get returns one configuration of the scope.
func (s *Service) Get(ctx context.Context, sc Scope, id uuid.UUID) (Config, error) {
	return s.store.Repo().GetConfig(ctx, sc, id)
}

// Update changes the fields ch sets. Switching a configuration on clears its DisabledReason and,
// when it was off, starts the auto-disable rule's window anew.
func (s *Service) Update(ctx context.Context, sc Scope, id uuid.UUID, ch Change) (Config, error) {
	var out Config
	err := s.opts.Audit.InTx(ctx, func(tx store.Tx) error {
		r := s.store.WithTx(tx)
		c, err := r.GetConfig(ctx, sc, id)
		if err != nil {
			return err
		}
		if ch.URL != nil {
			c.URL = *ch.URL
		}
		if ch.SubscribedEvents != nil {
			c.SubscribedEvents = *ch.SubscribedEvents
		}
		if ch.ExcludedReasons != nil {
			c.ExcludedReasons = *ch.ExcludedReasons
		}
		if ch.IsActive != nil {
			c.IsActive = *ch.IsActive
		}
		if ch.PartnerWalletLowThreshold != nil {
			c.PartnerWalletLowThreshold = ch.PartnerWalletLowThreshold
		}
		if err := s.validate(&c); err != nil {
			return err
		}
		if out, err = r.UpdateConfig(ctx, c, s.now()); err != nil {
			return err
		}
		return s.opts.Audit.Record(ctx, tx, configEntry(sc, id, "webhook_config.update", configDetails(out)))
	})
	return out, err
}

// RotateSecret gives configuration id a new signing secret, returned in full in the
// configuration's Secret (the only time it is shown). Until the configuration's
// PreviousExpiresAt, grace from now, deliveries are signed with the replaced secret too; a
// secret replaced by an earlier rotation stops signing at once. grace is 0 to MaxGrace.
func (s *Service) RotateSecret(ctx context.Context, sc Scope, id uuid.UUID, grace time.Duration) (Config, error) {
	if grace < 0 || grace > MaxGrace {
		return Config{}, invalid("graceMinutes must be 0 to %d", int(MaxGrace/time.Minute))
	}
	secret := newSigningSecret()
	var c Config
	e := configEntry(sc, id, "webhook_secret.rotate", map[string]string{"graceMinutes": strconv.Itoa(int(grace / time.Minute))})
	err := s.opts.Audit.Change(ctx, e, func(tx store.Tx) error {
		var err error
		c, err = s.store.WithTx(tx).RotateSecret(ctx, sc, id, s.box.Seal(secret), secret[len(secret)-4:], s.now().Add(grace))
		return err
	})
	if err != nil {
		return Config{}, err
	}
	c.Secret = secret
	return c, nil
}

// Resend sends delivery id's event again to its configuration, as a new delivery with attempts
// of its own, and returns the new delivery's id. The event keeps its id and body; each attempt is
// signed anew. ErrDeliveryNotFound for another scope's delivery, ErrConfigInactive when its
// configuration is switched off.
func (s *Service) Resend(ctx context.Context, sc Scope, id uuid.UUID) (uuid.UUID, error) {
	var out uuid.UUID
	err := s.opts.Audit.InTx(ctx, func(tx store.Tx) error {
		r := s.store.WithTx(tx)
		d, err := r.FindDelivery(ctx, sc, id)
		if err != nil {
			return err
		}
		if !d.ConfigActive {
			return ErrConfigInactive
		}
		if out, err = r.Resend(ctx, d.ID); err != nil {
			return err
		}
		return s.opts.Audit.Record(ctx, tx, audit.Entry{StudioID: sc.StudioID, Action: "webhook_delivery.resend", TargetType: "webhook_delivery",
			TargetID: id.String(), Environment: string(sc.Environment),
			Details: map[string]string{"configId": d.ConfigID.String(), "newDeliveryId": out.String()}})
	})
	return out, err
}

// Recover sends again every FAILED delivery of configuration id whose event happened at or
// after since, once: a delivery a recover took is not taken again, by a later recover or one
// running at the same time. Several failed deliveries of one event go out as one. It returns
// how many deliveries it queued, at most MaxRecover. since is not in the future;
// ErrConfigInactive when the configuration is switched off.
func (s *Service) Recover(ctx context.Context, sc Scope, id uuid.UUID, since time.Time) (int, error) {
	now := s.now()
	if since.After(now) {
		return 0, invalid("since must not be in the future")
	}
	var n int
	err := s.opts.Audit.InTx(ctx, func(tx store.Tx) error {
		r := s.store.WithTx(tx)
		c, err := r.GetConfig(ctx, sc, id)
		if err != nil {
			return err
		}
		if !c.IsActive {
			return ErrConfigInactive
		}
		if n, err = r.Recover(ctx, id, since, now, MaxRecover); err != nil {
			return err
		}
		return s.opts.Audit.Record(ctx, tx, configEntry(sc, id, "webhook_config.recover",
			map[string]string{"since": since.UTC().Format(time.RFC3339), "requeued": strconv.Itoa(n)}))
	})
	return n, err
}

// DisableFailing applies the auto-disable rule to every configuration and returns the ids of
// those it switched off. Deliver applies it to a delivery's configuration when the delivery
// fails for good; a periodic job applies it to all.
func (s *Service) DisableFailing(ctx context.Context) ([]uuid.UUID, error) {
	return s.disableFailing(ctx, nil)
}

// disableFailing switches off the configurations the rule selects (all, or configID's) and
// writes the audit entry of each, as the service's (a System actor), in one transaction; once it
// has committed, the owners of each studio are told.
func (s *Service) disableFailing(ctx context.Context, configID *uuid.UUID) ([]uuid.UUID, error) {
	ctx = audit.WithActor(ctx, audit.Actor{Kind: audit.System, Name: "webhooks auto-disable"})
	var off []Config
	err := s.opts.Audit.InTx(ctx, func(tx store.Tx) error {
		var err error
		if off, err = s.store.WithTx(tx).DisableFailing(ctx, configID, s.now().Add(-DisableAfter), DisableMinFailed, DisabledReasonFailing); err != nil {
			return err
		}
		for _, c := range off {
			d := configDetails(c)
			d["reason"] = DisabledReasonFailing
			if err := s.opts.Audit.Record(ctx, tx, configEntry(Scope{StudioID: c.StudioID, Environment: c.Environment}, c.ID, "webhook_config.disable", d)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("disable failing webhook configurations: %w", err)
	}
	ids := make([]uuid.UUID, len(off))
	for i, c := range off {
		ids[i] = c.ID
		s.notifyDisabled(ctx, c)
	}
	return ids, nil
}

// notifyDisabled tells the studio's owners that c was switched off. A failure is logged: the
// configuration stays off, and the console shows it with its reason.
func (s *Service) notifyDisabled(ctx context.Context, c Config) {
	if s.opts.Notifier == nil {
		return
	}
	subject := fmt.Sprintf("Webhook switched off: %s (%s)", redactedURL(c.URL), c.Environment)
	text := fmt.Sprintf("Your %s webhook configuration %s, sending to %s, was switched off: %s.\n\n"+
		"No delivery is queued for it until it is switched on again (in the console, or with isActive: true). "+
		"Once its receiver answers again, recover the failed deliveries from the time it went away.\n",
		c.Environment, c.ID, redactedURL(c.URL), DisabledReasonFailing)
	if err := s.opts.Notifier.NotifyOwners(ctx, c.StudioID, subject, text); err != nil {
		s.opts.Log.WarnContext(ctx, "could not tell the studio's owners of a webhook switched off", "studio", c.StudioID, "config", c.ID, "err", err)
	}
}

// configEntry is the audit entry of a change to configuration id of scope sc.
func configEntry(sc Scope, id uuid.UUID, action string, details map[string]string) audit.Entry {
	return audit.Entry{StudioID: sc.StudioID, Action: action, TargetType: "webhook_config", TargetID: id.String(),
		Environment: string(sc.Environment), Details: details}
}

// configDetails are what an audit entry shows of a configuration: never its secret, and its
// address without query or fragment (which may carry a receiver's token).
func configDetails(c Config) map[string]string {
	d := map[string]string{"url": redactedURL(c.URL), "active": strconv.FormatBool(c.IsActive),
		"events": strings.Join(c.SubscribedEvents, ",")}
	if c.PartnerWalletLowThreshold != nil {
		d["partnerWalletLowThreshold"] = c.PartnerWalletLowThreshold.String()
	}
	return d
}

// redactedURL is u without user, query or fragment.
func redactedURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p.User, p.RawQuery, p.ForceQuery, p.Fragment, p.RawFragment = nil, "", false, "", ""
	return p.String()
}

// Delete removes a configuration and its delivery records.
func (s *Service) Delete(ctx context.Context, sc Scope, id uuid.UUID) error {
	return s.opts.Audit.Change(ctx, configEntry(sc, id, "webhook_config.delete", nil), func(tx store.Tx) error {
		return s.store.WithTx(tx).DeleteConfig(ctx, sc, id)
	})
}

// Deliveries lists the scope's deliveries, newest first, and their total. f.Skip is at most
// MaxSkip.
func (s *Service) Deliveries(ctx context.Context, sc Scope, f DeliveryFilter) ([]Delivery, int64, error) {
	if f.Skip < 0 || f.Skip > MaxSkip {
		return nil, 0, invalid("skip must be 0 to %d", MaxSkip)
	}
	return s.store.Repo().ListDeliveries(ctx, sc, f)
}

// Stats summarises the scope's deliveries.
func (s *Service) Stats(ctx context.Context, sc Scope) (Stats, error) {
	return s.store.Repo().Stats(ctx, sc)
}

// TestResult is the outcome of a test event.
type TestResult struct {
	Delivered  bool
	HTTPStatus *int
	Error      string
	Duration   time.Duration
}

// SendTest sends one synthetic coin event of eventType to a configuration at once. It changes
// no balance, delivery or stat.
func (s *Service) SendTest(ctx context.Context, sc Scope, c studio.Caller, configID uuid.UUID, eventType string) (TestResult, error) {
	if !slices.Contains(CoinEventTypes, eventType) {
		return TestResult{}, invalid("eventType must be one of %v", CoinEventTypes)
	}
	cfg, err := s.store.Repo().GetConfig(ctx, sc, configID)
	if err != nil {
		return TestResult{}, err
	}
	secrets, err := s.secrets(cfg.Sealed, cfg.PreviousSealed, cfg.PreviousExpiresAt)
	if err != nil {
		return TestResult{}, err
	}
	delta := int64(100)
	reason := "TEST"
	if eventType == "COINS_DEBITED" {
		delta = -100
	}
	p := Payload{EventID: uuid.NewString(), EventType: eventType, Timestamp: s.now().UTC().Format(time.RFC3339Nano),
		AppID: c.GameID.String(), UserUUID: "test-user", CoinID: uuid.Nil.String(), Delta: delta, NewBalance: 1000,
		ReferenceID: "test", Reason: reason, Sequence: 1}
	body, _ := json.Marshal(p)
	a := s.send(ctx, cfg.URL, secrets, p.EventID, p.EventType, body, 1)
	res := TestResult{Delivered: a.Delivered, Duration: a.Duration}
	if a.Status != 0 {
		res.HTTPStatus = &a.Status
	}
	if a.Err != nil {
		res.Error = a.Err.Error()
	}
	// It changes nothing, yet a studio reads in its log who sent a test, and when.
	e := configEntry(sc, configID, "webhook_config.test", map[string]string{"eventType": eventType, "delivered": strconv.FormatBool(a.Delivered)})
	if err := s.opts.Audit.Change(ctx, e, func(store.Tx) error { return nil }); err != nil {
		return TestResult{}, err
	}
	return res, nil
}

// secrets are the plaintext secrets a request is signed with now: the current one, and the
// one a rotation replaced until its grace ends. They are read at each attempt, so an attempt
// after a rotation is signed with the new secret.
func (s *Service) secrets(current, previous []byte, previousExpiresAt *time.Time) ([]string, error) {
	secret, err := s.box.Open(current)
	if err != nil {
		return nil, err
	}
	out := []string{secret}
	if previous != nil && previousExpiresAt != nil && s.now().Before(*previousExpiresAt) {
		old, err := s.box.Open(previous)
		if err != nil {
			return nil, err
		}
		out = append(out, old)
	}
	return out, nil
}

// send makes one request of event eventID, signed with each of secrets.
func (s *Service) send(ctx context.Context, target string, secrets []string, eventID, eventType string, body []byte, attempt int) Attempt {
	now := s.now()
	req := Request{URL: target, Body: body, Headers: map[string]string{
		"Content-Type":         "application/json",
		"User-Agent":           UserAgent,
		"X-Service-Event-Id":   eventID,
		"X-Service-Event-Type": eventType,
		"X-Service-Timestamp":  strconv.FormatInt(now.Unix(), 10),
		"X-Service-Attempt":    strconv.Itoa(attempt),
		"X-Service-Signature":  SignAll(secrets, now, body),
	}}
	ctx, cancel := context.WithTimeout(ctx, AttemptTimeout)
	defer cancel()
	status, err := s.opts.Transport.Send(ctx, req)
	a := Attempt{Status: status, Err: err, AttemptNo: attempt, Duration: s.now().Sub(now)}
	switch {
	case err != nil:
	case status >= 200 && status <= 299:
		a.Delivered = true
	default:
		a.Err = fmt.Errorf("receiver answered %d", status)
	}
	return a
}

// Deliver makes the next attempt of a delivery and records it. It returns the attempt; when
// RetryAfter is set the caller schedules another Deliver after that long. A delivery that is
// finished, gone, or whose configuration was deactivated is not sent. Each attempt is signed with
// the secrets as they are when it is sent. A delivery that fails for good has its configuration
// checked against the auto-disable rule at once.
//
// At most MaxInFlight attempts to one configuration run at once in this process, so that a
// receiver that stalls holds only that many of the callers' workers. When they are all taken,
// Deliver makes no attempt and records nothing: it returns Busy, with RetryAfter set.
func (s *Service) Deliver(ctx context.Context, id uuid.UUID) (Attempt, error) {
	p, err := s.store.Repo().PendingDelivery(ctx, id)
	if errors.Is(err, ErrDeliveryGone) {
		return Attempt{}, nil
	}
	if err != nil {
		return Attempt{}, err
	}
	return s.DeliverPending(ctx, p)
}

// DeliverPending is Deliver of a delivery already read, as p: a caller that reads many
// deliveries at once hands each over without reading it again.
func (s *Service) DeliverPending(ctx context.Context, p Pending) (Attempt, error) {
	r, id := s.store.Repo(), p.DeliveryID
	var err error
	if p.Status == StatusSuccess || p.Status == StatusFailed {
		return Attempt{}, nil
	}
	attempt := p.AttemptNumber + 1
	if !p.ConfigActive {
		msg := "configuration is inactive"
		return Attempt{AttemptNo: p.AttemptNumber}, r.RecordAttempt(ctx, id, StatusFailed, p.AttemptNumber, nil, &msg, s.now(), nil)
	}
	secrets, err := s.secrets(p.Sealed, p.PreviousSealed, p.PreviousExpiresAt)
	if err != nil {
		return Attempt{}, err
	}
	give, retryAfter, ok := s.slots.take(ctx, p.ConfigID)
	if !ok {
		return Attempt{AttemptNo: p.AttemptNumber, Busy: true, RetryAfter: retryAfter}, nil
	}
	body := p.Body
	if body == nil {
		body, _ = json.Marshal(p.Payload)
	}
	a := s.send(ctx, p.URL, secrets, p.Payload.EventID, p.Payload.EventType, body, attempt)
	give()
	var httpStatus *int
	if a.Status != 0 {
		httpStatus = &a.Status
	}
	now := s.now()
	switch {
	case a.Delivered:
		err = r.RecordAttempt(ctx, id, StatusSuccess, attempt, httpStatus, nil, now, nil)
	case attempt >= MaxAttempts:
		msg := a.Err.Error()
		err = r.RecordAttempt(ctx, id, StatusFailed, attempt, httpStatus, &msg, now, nil)
		if err == nil { // the receiver may now have failed long enough to be switched off
			_, err = s.disableFailing(ctx, &p.ConfigID)
		}
	default:
		msg := a.Err.Error()
		a.RetryAfter = s.opts.RetryDelays[attempt-1]
		next := now.Add(a.RetryAfter)
		err = r.RecordAttempt(ctx, id, StatusRetrying, attempt, httpStatus, &msg, now, &next)
	}
	return a, err
}
