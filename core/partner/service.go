package partner

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/authcache"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/vouchers"
	"github.com/rewardsco/rewards/core/weburl"
)

// Config holds the partner module's collaborators and settings.
type Config struct {
	// Currency is the deployment's (INR or USD): the wallet's, the cards' and the payments'.
	Currency string
	// Payments collects the live environment's CASH orders; nil when none is configured (CASH
	// orders then fail with PAYMENT_INIT_FAILED).
	Payments payments.Provider
	// TestPayments collects the test environment's CASH orders (a provider's test mode, or the
	// built-in sandbox): test orders never reach Payments. nil when none is configured.
	TestPayments payments.Provider
	// Box seals quotes.
	Box sealed.Box
	// Jobs queues payment reconciliations and refunds; OrderJobs queues fulfilments.
	Jobs      Jobs
	OrderJobs orders.Scheduler
	// SessionTTL is how long a CASH order's payment session stays open.
	SessionTTL time.Duration
	// ReturnURL is where a payer goes after paying when the order names no returnUrl.
	ReturnURL string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// StockLive and StockTest answer the stock endpoint of each environment (a cache of the
	// provider's answers); nil means the environment's provider itself. Orders always ask the
	// provider.
	StockLive, StockTest vouchers.Provider
	// PaymentCheckEvery is how often a read of a PENDING_PAYMENT order may ask the provider
	// (per order, across instances); zero means DefaultPaymentCheckEvery.
	PaymentCheckEvery time.Duration
	// AllowHTTPURLs lets returnUrl be plain http (outside production); otherwise https.
	AllowHTTPURLs bool
	// Log records what partners are not told (a payment that does not match its order); nil
	// discards.
	Log *slog.Logger
}

// Service holds the partner use cases.
type Service struct {
	runner  store.Runner
	partner store.Of[Repo]
	orders  store.Of[orders.Repo]
	studio  *studio.Service
	saga    *orders.Service
	cfg     Config
	now     func() time.Time
	// tokens keeps found tokens, by hash, for authcache.TTL: an order or read costs no token
	// lookup while it is fresh. Whatever revokes tokens here (settings, a secret, an exchange
	// trimming the oldest) or in the studio module (a key rotation) drops the game's at once
	// on this instance; other instances see it within authcache.TTL.
	tokens *authcache.Cache[string, TokenRecord]
}

// maxCachedTokens bounds Service.tokens.
const maxCachedTokens = 50_000

// NewService returns a Service. saga is the orders module's service, whose saga fulfils partner
// orders; keys authenticates client ids.
func NewService(runner store.Runner, partnerStore store.Of[Repo], orderStore store.Of[orders.Repo], keys *studio.Service,
	saga *orders.Service, cfg Config) *Service {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	if cfg.PaymentCheckEvery <= 0 {
		cfg.PaymentCheckEvery = DefaultPaymentCheckEvery
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &Service{runner: runner, partner: partnerStore, orders: orderStore, studio: keys, saga: saga, cfg: cfg, now: now,
		tokens: authcache.New[string, TokenRecord](maxCachedTokens)}
	// A key rotation revokes the game's tokens.
	keys.WhenKeysRotate(s.dropGame)
	return s
}

// dropGame forgets the game's cached tokens (and any lookup in flight).
func (s *Service) dropGame(gameID uuid.UUID) {
	s.tokens.Drop(func(_ string, r TokenRecord) bool { return r.GameID == gameID })
}

// Currency is the deployment's currency.
func (s *Service) Currency() string { return s.cfg.Currency }

// ---- Operator ----

// PutSettings enables (or disables) a game for the partner API with its settlement model and
// discount. Enabling a game that has no live client secret issues one, in the same transaction,
// and returns it in plaintext (liveSecret, only here; "" when the game had one): on live the API
// key, which ships inside game clients, never authenticates a partner alone.
func (s *Service) PutSettings(ctx context.Context, in Settings) (out Settings, liveSecret string, err error) {
	if in.Settlement != orders.Wallet && in.Settlement != orders.Cash {
		return Settings{}, "", errs.Invalidf("settlement must be WALLET or CASH")
	}
	if in.DiscountPct < 0 || in.DiscountPct > MaxDiscount {
		return Settings{}, "", errs.Invalidf("discountPct must be from 0 to 90")
	}
	if _, err := s.studio.GetGame(ctx, in.GameID); err != nil {
		return Settings{}, "", err
	}
	err = s.partner.InTx(ctx, func(r Repo) error {
		if out, err = r.PutSettings(ctx, in); err != nil || !in.Enabled {
			return err
		}
		// The settings row is locked by the write above, so two enablings issue one secret.
		_, has, err := r.SecretHash(ctx, in.GameID, studio.Live)
		if err != nil || has {
			return err
		}
		liveSecret = NewClientSecret()
		return r.PutSecret(ctx, in.GameID, studio.Live, studio.HashKey(liveSecret))
	})
	s.dropGame(in.GameID) // callers carry the settings
	if err != nil {
		return Settings{}, "", err
	}
	return out, liveSecret, nil
}

// NewClientSecret returns a new client secret in plaintext (rcs_ and 40 base62 characters).
func NewClientSecret() string { return "rcs_" + studio.RandomBase62(40) }

// GetSettings returns a game's partner settings (disabled WALLET at 0 % when never set).
func (s *Service) GetSettings(ctx context.Context, gameID uuid.UUID) (Settings, error) {
	if _, err := s.studio.GetGame(ctx, gameID); err != nil {
		return Settings{}, err
	}
	st, found, err := s.partner.Repo().GetSettings(ctx, gameID)
	if err != nil || found {
		return st, err
	}
	return Settings{GameID: gameID, Settlement: orders.Wallet}, nil
}

// IssueSecret issues a game's client secret of env, returned in plaintext only here: the old
// secret and every token issued before stop working when this commits.
func (s *Service) IssueSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment) (string, error) {
	if !env.Valid() {
		return "", errs.Invalidf("environment must be live or test")
	}
	if _, err := s.studio.GetGame(ctx, gameID); err != nil {
		return "", err
	}
	plain := NewClientSecret()
	err := s.partner.InTx(ctx, func(r Repo) error {
		if err := r.PutSecret(ctx, gameID, env, studio.HashKey(plain)); err != nil {
			return err
		}
		return r.DeleteTokens(ctx, gameID, env)
	})
	s.dropGame(gameID)
	return plain, err
}

// Credit funds a wallet; a reference seen before on this wallet is not credited again (credited
// is false). It returns the balance.
func (s *Service) Credit(ctx context.Context, gameID uuid.UUID, env studio.Environment, amount money.Amount, reference string) (balance money.Amount, credited bool, err error) {
	if !env.Valid() {
		return 0, false, errs.Invalidf("environment must be live or test")
	}
	if amount <= 0 || amount > MaxCredit {
		return 0, false, errs.Invalidf("amount must be positive and at most %s", MaxCredit)
	}
	reference = strings.TrimSpace(reference)
	if reference == "" || len(reference) > 128 {
		return 0, false, errs.Invalidf("reference is required (1 to 128 characters): it keeps a credit from being applied twice")
	}
	if _, err := s.studio.GetGame(ctx, gameID); err != nil {
		return 0, false, err
	}
	err = s.partner.InTx(ctx, func(r Repo) error {
		bal, err := r.LockWallet(ctx, gameID, env)
		if err != nil {
			return err
		}
		balance = bal
		seen, err := r.CreditExists(ctx, gameID, env, reference)
		if err != nil || seen {
			return err
		}
		if bal > MaxBalance-amount {
			return errs.Invalidf("this credit would take the wallet past %s", MaxBalance)
		}
		e, err := r.Apply(ctx, Entry{GameID: gameID, Environment: env, Kind: Credit, Amount: amount, BalanceAfter: bal + amount, Reference: reference})
		balance, credited = e.BalanceAfter, err == nil
		return err
	})
	return balance, credited, err
}

// Entries returns a wallet's ledger, oldest first.
func (s *Service) Entries(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]Entry, error) {
	return s.partner.Repo().Entries(ctx, gameID, env)
}

// Ledger returns a wallet's balance and a page of its entries, oldest first, with their number.
func (s *Service) Ledger(ctx context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) (money.Amount, []Entry, int64, error) {
	if !env.Valid() {
		return 0, nil, 0, errs.Invalidf("environment must be live or test")
	}
	repo := s.partner.Repo()
	bal, err := repo.Wallet(ctx, gameID, env)
	if err != nil {
		return 0, nil, 0, err
	}
	list, total, err := repo.EntriesPage(ctx, gameID, env, limit, offset)
	return bal, list, total, err
}

// ---- Tokens ----

// Token exchanges a client id (the game's API key of the host's environment) and, when the game
// has one, its client secret for a bearer token valid TokenLifetime.
func (s *Service) Token(ctx context.Context, clientID, clientSecret string, hostEnv studio.Environment) (string, time.Duration, error) {
	caller, err := s.studio.Authenticate(ctx, clientID, hostEnv)
	if err != nil {
		if errs.KindOf(err) == errs.Unauthorized {
			return "", 0, ErrBadClient.Withf("%s: %s", ErrBadClient.Message, err.Error())
		}
		return "", 0, err
	}
	repo := s.partner.Repo()
	st, found, err := repo.GetSettings(ctx, caller.GameID)
	if err != nil {
		return "", 0, err
	}
	if !found || !st.Enabled {
		return "", 0, ErrBadClient.Withf("this client is not enabled for the gift-card partner API")
	}
	hash, hasSecret, err := repo.SecretHash(ctx, caller.GameID, hostEnv)
	if err != nil {
		return "", 0, err
	}
	if !hasSecret && hostEnv == studio.Live {
		// The key ships inside game clients: on live it never authenticates a partner alone.
		return "", 0, ErrBadClient.Withf("the live environment needs the client secret (client_secret): the operator issues it when enabling partner mode")
	}
	if hasSecret && (clientSecret == "" || subtle.ConstantTimeCompare(studio.HashKey(clientSecret), hash) != 1) {
		return "", 0, ErrBadClient
	}
	token := "rpt_" + studio.RandomBase62(40)
	g := TokenGrant{Hash: studio.HashKey(token), GameID: caller.GameID, Environment: hostEnv, ExpiresAt: s.now().Add(TokenLifetime),
		KeyHash: studio.HashKey(clientID)}
	if hasSecret {
		// The secret as read: if a rotation commits meanwhile, the token is born revoked.
		g.SecretHash = hash
	}
	err = s.partner.InTx(ctx, func(r Repo) error {
		if err := r.LockTokens(ctx, caller.GameID, hostEnv); err != nil {
			return err
		}
		if err := r.TrimTokens(ctx, caller.GameID, hostEnv, MaxTokens-1); err != nil {
			return err
		}
		return r.InsertToken(ctx, g)
	})
	s.dropGame(caller.GameID) // the oldest tokens may have been trimmed
	if err != nil {
		return "", 0, err
	}
	return token, TokenLifetime, nil
}

// Authenticate resolves a bearer token on a host of hostEnv.
func (s *Service) Authenticate(ctx context.Context, token string, hostEnv studio.Environment) (Caller, error) {
	if token == "" {
		return Caller{}, ErrTokenMissing
	}
	if !strings.HasPrefix(token, "rpt_") {
		return Caller{}, ErrTokenInvalid
	}
	hash := string(studio.HashKey(token))
	rec, cached := s.tokens.Get(hash)
	if !cached {
		gen := s.tokens.Generation()
		var err error
		if rec, err = s.partner.Repo().FindToken(ctx, []byte(hash)); err != nil {
			return Caller{}, err
		}
		s.tokens.Put(hash, rec, gen)
	}
	if rec.Environment != hostEnv || !s.now().Before(rec.ExpiresAt) {
		return Caller{}, ErrTokenInvalid
	}
	if rec.Settings == nil || !rec.Settings.Enabled {
		return Caller{}, ErrDisabled
	}
	return Caller{GameID: rec.GameID, StudioID: rec.StudioID, GameName: rec.GameName, Environment: rec.Environment, Settings: *rec.Settings}, nil
}

// PurgeTokens deletes at most batch expired tokens, for the periodic purge; more reports that a
// full batch went (another call may find more).
func (s *Service) PurgeTokens(ctx context.Context, batch int) (deleted int64, more bool, err error) {
	n, err := s.partner.Repo().PurgeTokens(ctx, batch)
	return n, n == int64(batch), err
}

// ---- Catalogue ----

// Wallet returns the caller's wallet balance.
func (s *Service) Wallet(ctx context.Context, c Caller) (money.Amount, error) {
	return s.partner.Repo().Wallet(ctx, c.GameID, c.Environment)
}

// Brands returns a page of the gift cards partners buy and the total.
func (s *Service) Brands(ctx context.Context, search string, limit, offset int) ([]Brand, int64, error) {
	return s.partner.Repo().Brands(ctx, BrandQuery{Search: strings.TrimSpace(search), Limit: limit, Offset: offset})
}

// Brand returns one gift card by its brand code, or ErrBrandUnknown.
func (s *Service) Brand(ctx context.Context, code string) (Brand, error) {
	b, found, err := s.partner.Repo().Brand(ctx, code)
	if err != nil {
		return Brand{}, err
	}
	if !found {
		return Brand{}, ErrBrandUnknown
	}
	return b, nil
}

// Stock says whether a denomination of a brand can be bought now, and how many are left.
func (s *Service) Stock(ctx context.Context, c Caller, code string, d money.Amount) (Stock, error) {
	b, err := s.Brand(ctx, code)
	if err != nil {
		return Stock{}, err
	}
	if !b.Offers(d) {
		return Stock{}, ErrDenominationNotAvailable
	}
	st := Stock{BrandCode: b.Code, Denomination: d}
	provider := s.saga.Provider(c.Environment)
	if cached := map[bool]vouchers.Provider{true: s.cfg.StockLive, false: s.cfg.StockTest}[c.Environment == studio.Live]; cached != nil {
		provider = cached
	}
	if provider == nil {
		return st, nil
	}
	levels, err := provider.Stock(ctx, b.ProviderProduct)
	if err != nil {
		return Stock{}, fmt.Errorf("stock of %s: %w", b.ProviderProduct, err)
	}
	if lv, found := vouchers.LevelOf(levels, d, b.ValueType == Dynamic); found {
		st.Available, st.Quantity = lv.Covers(1), lv.Quantity
	}
	return st, nil
}

// quote is what a quoteId seals.
type quote struct {
	GameID       uuid.UUID          `json:"g"`
	Environment  studio.Environment `json:"e"`
	Brand        string             `json:"b"`
	Denomination money.Amount       `json:"d"`
	Quantity     int                `json:"q"`
	Amount       money.Amount       `json:"a"`
	ExpiresAt    int64              `json:"x"`
	// ID makes the quote single use; Discount is the partner's discount it was priced at (a
	// change of discount expires it).
	ID       string    `json:"i"`
	Discount money.Pct `json:"p"`
}

// Preview prices an order: faceValue = denomination × quantity, amount = faceValue less the
// partner's discount, rounded half up to the cent, held by a quote for QuoteLifetime.
func (s *Service) Preview(ctx context.Context, c Caller, code string, d money.Amount, quantity int) (Preview, error) {
	if quantity < 1 || quantity > MaxQuantity {
		return Preview{}, errs.Invalidf("quantity must be from 1 to %d", MaxQuantity)
	}
	b, err := s.orderable(ctx, code, d)
	if err != nil {
		return Preview{}, err
	}
	face, amount := Price(d, quantity, c.Settings.DiscountPct)
	p := Preview{Brand: b, Denomination: d, Quantity: quantity, FaceValue: face, Settlement: c.Settings.Settlement,
		Amount: amount, Currency: s.cfg.Currency, ExpiresAt: s.now().Add(QuoteLifetime).UTC().Truncate(time.Second)}
	p.QuoteID = encodeQuote(s.cfg.Box, quote{GameID: c.GameID, Environment: c.Environment, Brand: b.Code, Denomination: d,
		Quantity: quantity, Amount: amount, ExpiresAt: p.ExpiresAt.Unix(), ID: uuid.NewString(), Discount: c.Settings.DiscountPct})
	return p, nil
}

// encodeQuote seals a quote into its id: only this service can make or read one.
func encodeQuote(box sealed.Box, q quote) string {
	raw, _ := json.Marshal(q)
	return base64.RawURLEncoding.EncodeToString(box.Seal(string(raw)))
}

// orderable returns the brand of code when it sells face value d.
func (s *Service) orderable(ctx context.Context, code string, d money.Amount) (Brand, error) {
	b, err := s.Brand(ctx, code)
	if errs.CodeOf(err) == ErrBrandUnknown.Code {
		return Brand{}, ErrBrandNotFound
	}
	if err != nil {
		return Brand{}, err
	}
	if !b.Offers(d) {
		return Brand{}, ErrDenominationNotAvailable
	}
	return b, nil
}

// price is what an order pays: its quote's amount when it names a valid one, else today's price.
// The quote's id (quoteID) is "" when the order names none; the order's transaction records
// its use (single use).
func (s *Service) price(c Caller, r PlaceRequest) (amount money.Amount, quoteID string, err error) {
	_, amount = Price(r.Denomination, r.Quantity, c.Settings.DiscountPct)
	if r.QuoteID == "" {
		return amount, "", nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(r.QuoteID)
	if err != nil {
		return 0, "", ErrQuoteMismatch
	}
	plain, err := s.cfg.Box.Open(raw)
	var q quote
	if err != nil || json.Unmarshal([]byte(plain), &q) != nil || q.ID == "" {
		return 0, "", ErrQuoteMismatch
	}
	if q.GameID != c.GameID || q.Environment != c.Environment || q.Brand != r.BrandCode || q.Denomination != r.Denomination || q.Quantity != r.Quantity {
		return 0, "", ErrQuoteMismatch
	}
	if !s.now().Before(time.Unix(q.ExpiresAt, 0)) {
		return 0, "", ErrQuoteExpired
	}
	if q.Discount != c.Settings.DiscountPct {
		return 0, "", ErrQuoteExpired.Withf("the quote was issued before the partner's discount changed; ask for a new preview")
	}
	return q.Amount, q.ID, nil
}

// useQuote records, in the order's transaction, that the order used its quote: a quote used
// before is ErrQuoteUsed.
func (s *Service) useQuote(ctx context.Context, t store.Tx, quoteID string, orderID uuid.UUID) error {
	if quoteID == "" {
		return nil
	}
	fresh, err := s.partner.WithTx(t).UseQuote(ctx, quoteID, orderID)
	if err != nil {
		return err
	}
	if !fresh {
		return ErrQuoteUsed
	}
	return nil
}

// ---- Orders ----

// PlaceRequest is a partner's order.
type PlaceRequest struct {
	ClientOrderID string
	BrandCode     string
	Denomination  money.Amount
	Quantity      int
	Customer      orders.Customer
	ReturnURL     string
	QuoteID       string
}

var (
	clientOrderIDPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	e164                 = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	emailPattern         = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[^@\s]+$`)
)

func (r PlaceRequest) validate() error {
	switch {
	case !clientOrderIDPattern.MatchString(r.ClientOrderID):
		return errs.Invalidf("clientOrderId must be 1 to 64 of A-Z a-z 0-9 _ -")
	case r.Quantity < 1 || r.Quantity > MaxQuantity:
		return errs.Invalidf("quantity must be from 1 to %d", MaxQuantity)
	case strings.TrimSpace(r.Customer.Ref) == "" || len(r.Customer.Ref) > 128:
		return errs.Invalidf("customer.ref is required (1 to 128 characters)")
	case r.Customer.Email != "" && (len(r.Customer.Email) > 254 || !emailPattern.MatchString(r.Customer.Email)):
		return errs.Invalidf("customer.email is not an email address")
	case r.Customer.Phone != "" && !e164.MatchString(r.Customer.Phone):
		return errs.Invalidf("customer.phone must be in E.164 form, such as +919876543210")
	}
	// The deployment's scheme rule (https in production) is checked by Place.
	return weburl.Check("returnUrl", r.ReturnURL, true, false)
}

// Place places a partner order, once per clientOrderId: a retry with the same brand,
// denomination and quantity answers the order as it is now (replayed true); another body is
// 422 IDEMPOTENCY_KEY_REUSED. WALLET: the wallet is debited in the order's transaction (too low
// a balance creates nothing), the provider is asked outside it, and the answer within the wait
// is in the result (else TIMEOUT, which a job resolves; FAILED refunds the wallet). CASH: a
// payment session is opened first (PAYMENT_INIT_FAILED keeps nothing), and the order waits
// PENDING_PAYMENT for its payment.
func (s *Service) Place(ctx context.Context, c Caller, r PlaceRequest) (orders.View, bool, error) {
	if err := r.validate(); err != nil {
		return orders.View{}, false, err
	}
	if err := weburl.Check("returnUrl", r.ReturnURL, s.cfg.AllowHTTPURLs, false); err != nil {
		return orders.View{}, false, err
	}
	// A WALLET order is looked up by its clientOrderId only when it is not placed: the insert of
	// its transaction finds an order placed with it (the unique index: ErrClientOrderTaken), and
	// a check that refuses a retry (its quote used or expired since, the stock, the wallet) does
	// not hide the order the first try placed. A new order, nearly every one, saves the round
	// trip. A CASH order opens its payment session before its transaction, so it looks first.
	if c.Settings.Settlement == orders.Cash {
		if v, found, err := s.existing(ctx, c, r); found || err != nil {
			return v, found, err
		}
		return s.place(ctx, c, r)
	}
	v, replayed, err := s.place(ctx, c, r)
	if err != nil {
		if v, found, ferr := s.existing(ctx, c, r); found || ferr != nil {
			return v, found, ferr
		}
	}
	return v, replayed, err
}

// place is Place once the request is known to be new (CASH), or to be placed unless its
// clientOrderId is taken (WALLET).
func (s *Service) place(ctx context.Context, c Caller, r PlaceRequest) (orders.View, bool, error) {
	b, err := s.orderable(ctx, r.BrandCode, r.Denomination)
	if err != nil {
		return orders.View{}, false, err
	}
	amount, quoteID, err := s.price(c, r)
	if err != nil {
		return orders.View{}, false, err
	}
	if err := s.inStock(ctx, c.Environment, b, r.Denomination, r.Quantity); err != nil {
		return orders.View{}, false, err
	}
	now := s.now()
	o := orders.Order{ID: uuid.New(), Channel: orders.Partner, GameID: c.GameID, Environment: c.Environment,
		UserRef: r.Customer.Ref, RewardID: b.RewardID, RewardType: catalogue.GiftCard, Denomination: r.Denomination,
		Quantity: r.Quantity, FaceValue: r.Denomination.Times(int64(r.Quantity)), ProviderProduct: b.ProviderProduct,
		DeadlineAt: now.Add(s.saga.Deadline()),
		Partner: &orders.Terms{ClientOrderID: r.ClientOrderID, Customer: r.Customer, Settlement: c.Settings.Settlement,
			Amount: amount, Currency: s.cfg.Currency, BrandCode: b.Code, BrandName: b.Name}}
	if c.Settings.Settlement == orders.Cash {
		err = s.placeCash(ctx, &o, r, quoteID)
	} else {
		o.Status, o.Partner.Payment.Status = orders.Initiated, orders.NotRequired
		err = s.placeWallet(ctx, &o, quoteID)
	}
	if errs.CodeOf(err) == orders.ErrClientOrderTaken.Code {
		// A concurrent placement with the same clientOrderId won; this one rolled back.
		v, found, err := s.existing(ctx, c, r)
		if !found && err == nil {
			err = orders.ErrClientOrderTaken
		}
		return v, found, err
	}
	if err != nil {
		return orders.View{}, false, err
	}
	if o.Status == orders.Processing {
		// Sent to the provider now that it is placed; the answer within the wait is the result.
		return s.saga.FulfilSent(ctx, o), false, nil
	}
	v, err := s.view(ctx, o.ID)
	return v, false, err
}

// existing returns the order a clientOrderId already placed, checking that the request is the same.
func (s *Service) existing(ctx context.Context, c Caller, r PlaceRequest) (orders.View, bool, error) {
	o, err := s.orders.Repo().FindByClientOrderID(ctx, c.GameID, c.Environment, r.ClientOrderID)
	if errs.CodeOf(err) == orders.ErrOrderNotFound.Code {
		return orders.View{}, false, nil
	}
	if err != nil {
		return orders.View{}, false, err
	}
	if o.Partner.BrandCode != r.BrandCode || o.Denomination != r.Denomination || o.Quantity != r.Quantity {
		return orders.View{}, false, errs.New(errs.Unprocessable, "IDEMPOTENCY_KEY_REUSED",
			"this clientOrderId was used for another order (another brand, denomination or quantity)")
	}
	v, err := s.saga.Open(o)
	return v, true, err
}

// inStock checks the stock of the environment's voucher provider (the test environment's never
// is the live one).
func (s *Service) inStock(ctx context.Context, env studio.Environment, b Brand, d money.Amount, quantity int) error {
	provider := s.saga.Provider(env)
	if provider == nil {
		return ErrOutOfStock.Withf("no voucher provider is configured")
	}
	levels, err := provider.Stock(ctx, b.ProviderProduct)
	if err != nil {
		return fmt.Errorf("stock of %s: %w", b.ProviderProduct, err)
	}
	if lv, found := vouchers.LevelOf(levels, d, b.ValueType == Dynamic); found && lv.Covers(quantity) {
		return nil
	}
	return ErrOutOfStock
}

// placeWallet is a WALLET order's transaction: create the order, then debit the wallet, in two
// round trips (BEGIN with the order and its transitions, whose answer is its creation time; the
// debit with the COMMIT; a quote's use adds one). The order is stored PROCESSING with no job:
// Place sends it once this commits (FulfilSent), which hands it to a job only when it is not
// final within the wait. The wallet
// row, which every order of the partner contends on, is debited with the commit
// (DebitAtCommit), so that it is held only while the commit runs. When the runner offers
// WalletTurns, an order without a quote takes its wallet's turns (group commit): the orders of
// one partner then share the wallet's lock and its commit's flush. An order with a quote keeps
// a transaction of its own, since its quote's use is a refusal of its own.
func (s *Service) placeWallet(ctx context.Context, po *orders.Order, quoteID string) (err error) {
	placed := *po
	tx := func(ctx context.Context, t store.Tx) error {
		// Stored as sent; Place sends it once this commits. The insert is the one statement whose
		// answer the transaction reads (the order's creation time, the transaction's).
		o, err := s.orders.WithTx(t).Insert(ctx, placed, "wallet debited", orders.SentStep)
		if err != nil {
			return err
		}
		if err := s.useQuote(ctx, t, quoteID, o.ID); err != nil {
			return err
		}
		*po = o
		return s.partner.WithTx(t).DebitAtCommit(ctx, o.GameID, o.Environment, o.ID, o.Partner.Amount)
	}
	if turns, ok := s.runner.(WalletTurns); ok && quoteID == "" {
		err = turns.InWalletTurn(ctx, placed.GameID, placed.Environment, placed.Partner.Amount, tx)
	} else {
		err = s.runner.InTx(ctx, func(t store.Tx) error { return tx(ctx, t) })
	}
	if errs.CodeOf(err) == ErrInsufficientBalance.Code {
		// Rolled back; the balance, read now, is for the message only.
		bal, berr := s.partner.Repo().Wallet(ctx, po.GameID, po.Environment)
		if berr != nil {
			return ErrInsufficientBalance
		}
		return ErrInsufficientBalance.Withf("studio wallet balance too low: the order costs %s %s and the wallet holds %s",
			po.Partner.Amount, s.cfg.Currency, bal)
	}
	return err
}

// placeCash opens the order's payment session and records the order PENDING_PAYMENT with a
// look at its payment queued for when the session expires.
func (s *Service) placeCash(ctx context.Context, o *orders.Order, r PlaceRequest, quoteID string) error {
	pay := s.payments(o.Environment)
	if pay == nil {
		return fmt.Errorf("%w: no payment provider is configured for the %s environment", ErrPaymentInit, o.Environment)
	}
	returnURL := r.ReturnURL
	if returnURL == "" {
		returnURL = s.cfg.ReturnURL
	}
	expires := s.now().Add(s.cfg.SessionTTL).UTC().Truncate(time.Second)
	sess, err := pay.CreateSession(ctx, payments.SessionRequest{OrderID: o.ID.String(), Amount: o.Partner.Amount,
		Currency: s.cfg.Currency, Description: fmt.Sprintf("%s gift card %s × %d", o.Partner.BrandName, o.Denomination, o.Quantity),
		ReturnURL: returnURL, ExpiresAt: expires,
		Customer: payments.Customer{Ref: r.Customer.Ref, Email: r.Customer.Email, Phone: r.Customer.Phone}})
	if err != nil {
		// The provider's own words (URLs, addresses) are for the log, never for the partner.
		return fmt.Errorf("%w: %w", ErrPaymentInit, err)
	}
	o.Status = orders.PendingPayment
	o.Partner.Payment = orders.Payment{Status: orders.PaymentPending, Provider: pay.Name(), SessionID: sess.ID,
		PayerToken: sess.PayerToken, ExpiresAt: &expires, ReturnURL: r.ReturnURL}
	err = s.runner.InTx(ctx, func(t store.Tx) error {
		if err := s.useQuote(ctx, t, quoteID, o.ID); err != nil {
			return err
		}
		if _, err := s.orders.WithTx(t).Insert(ctx, *o, "payment session opened"); err != nil {
			return err
		}
		return s.cfg.Jobs.ScheduleReconcile(ctx, t, o.ID, expires.Add(time.Second))
	})
	if err != nil {
		// Nobody was given the session: end it so that it cannot be paid.
		_, _ = pay.ExpireSession(context.WithoutCancel(ctx), sess.ID)
	}
	return err
}

// Order returns one of the caller's orders. A PENDING_PAYMENT order is first checked with the
// payment provider, so that a paid order whose confirmation never arrived is fulfilled now.
func (s *Service) Order(ctx context.Context, c Caller, id uuid.UUID) (orders.View, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if errs.CodeOf(err) == orders.ErrOrderNotFound.Code || (err == nil && (o.Channel != orders.Partner || o.GameID != c.GameID || o.Environment != c.Environment)) {
		return orders.View{}, ErrOrderNotFound
	}
	if err != nil {
		return orders.View{}, err
	}
	if o.Status == orders.PendingPayment {
		// At most one ask per order in PaymentCheckEvery, whoever reads (a partner polling can
		// not spend the provider's rate limit); a provider that does not answer leaves the order
		// as it is, and the expiry job settles it.
		claimed, err := s.partner.Repo().ClaimPaymentCheck(ctx, id, s.cfg.PaymentCheckEvery)
		if err != nil {
			return orders.View{}, err
		}
		if claimed {
			askCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
			_ = s.Reconcile(askCtx, id)
			cancel()
			if o, err = s.orders.Repo().Get(ctx, id); err != nil {
				return orders.View{}, err
			}
		}
	}
	return s.saga.Open(o)
}

// Orders returns a page of the caller's orders, newest first, and the total.
func (s *Service) Orders(ctx context.Context, c Caller, customerRef, clientOrderID string, limit, offset int) ([]orders.View, int64, error) {
	list, total, err := s.orders.Repo().ListForPartner(ctx, c.GameID, c.Environment, customerRef, clientOrderID, limit, offset)
	if err != nil {
		return nil, 0, err
	}
	out := make([]orders.View, len(list))
	for i, o := range list {
		if out[i], err = s.saga.Open(o); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

func (s *Service) view(ctx context.Context, id uuid.UUID) (orders.View, error) {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return orders.View{}, err
	}
	return s.saga.Open(o)
}

// ---- Payments ----

// HandleEvent verifies and records a payment provider's webhook and queues a look at its order:
// an event seen before (by id) is acknowledged and changes nothing; the order's state is always
// taken from the provider, never from the event, so events in any order have one effect.
func (s *Service) HandleEvent(ctx context.Context, provider string, header func(string) string, body []byte) error {
	// Both environments' credentials send events to the same route: an event counts only for
	// an order of an environment whose secret verifies it.
	var (
		e        payments.Event
		verified []studio.Environment
		err      error = ErrNoPaymentProvider
	)
	for _, candidate := range []studio.Environment{studio.Live, studio.Test} {
		pay := s.payments(candidate)
		if pay == nil || pay.Name() != provider {
			continue
		}
		parsed, perr := pay.ParseEvent(header, body, s.now())
		if perr != nil {
			err = perr
			continue
		}
		if len(verified) == 0 {
			e = parsed
		}
		verified = append(verified, candidate)
	}
	if len(verified) == 0 {
		return err
	}
	env := verified[0]
	var orderID *uuid.UUID
	if id, err := uuid.Parse(e.OrderID); err == nil {
		orderID = &id
	} else if e.SessionID != "" {
		if id, err := s.orders.Repo().FindBySession(ctx, e.SessionID); err == nil {
			orderID = &id
		}
	}
	if orderID != nil {
		o, err := s.orders.Repo().Get(ctx, *orderID)
		switch {
		case err != nil:
			orderID = nil // not one of ours (another deployment's, or a test event)
		case slices.Contains(verified, o.Environment):
			env = o.Environment
		default:
			// Verified only by the other environment's secret: a secret of one world never
			// moves an order of the other.
			orderID = nil
		}
	}
	return s.runner.InTx(ctx, func(t store.Tx) error {
		fresh, err := s.partner.WithTx(t).RecordEvent(ctx, provider, env, e, orderID)
		if err != nil || !fresh || orderID == nil || e.Type == payments.Ignored {
			return err
		}
		return s.cfg.Jobs.ScheduleReconcile(ctx, t, *orderID, s.now())
	})
}

// payments is the payment provider of env, nil when none is configured: the test environment
// has its own and never reaches the live one.
func (s *Service) payments(env studio.Environment) payments.Provider {
	if env == studio.Live {
		return s.cfg.Payments
	}
	return s.cfg.TestPayments
}

// Reconcile brings a CASH order in line with its payment session, for the reconcile job, an
// event and a read: a paid PENDING_PAYMENT order is fulfilled; one past its expiry (or whose
// session ended) has its session ended at the provider and is REFUNDED with payment EXPIRED,
// unless the provider says it was paid after all; a payment that arrives for an order already
// REFUNDED is refunded.
func (s *Service) Reconcile(ctx context.Context, id uuid.UUID) error {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return err
	}
	if o.Channel != orders.Partner || o.Partner.Settlement != orders.Cash {
		return nil
	}
	pay := s.payments(o.Environment)
	if pay == nil {
		return fmt.Errorf("no payment provider is configured for the %s environment", o.Environment)
	}
	p := o.Partner.Payment
	switch {
	case o.Status == orders.PendingPayment:
		sess, err := pay.GetSession(ctx, p.SessionID)
		if err != nil {
			return err
		}
		if sess.Status == payments.Open && p.ExpiresAt != nil && !s.now().Before(*p.ExpiresAt) {
			if sess, err = pay.ExpireSession(ctx, p.SessionID); err != nil {
				return err
			}
		}
		switch sess.Status {
		case payments.Paid:
			if sess.Amount != o.Partner.Amount || !strings.EqualFold(sess.Currency, s.cfg.Currency) {
				return s.mismatched(ctx, o, sess, pay.Name())
			}
			return s.confirmPaid(ctx, o, sess, pay.Name())
		case payments.Expired:
			return s.runner.InTx(ctx, func(t store.Tx) error {
				repo := s.orders.WithTx(t)
				moved, err := repo.Move(ctx, o.ID, orders.PendingPayment, orders.Refunded, "payment session ended unpaid", nil)
				if err != nil || !moved {
					return err
				}
				_, err = repo.SetPayment(ctx, o.ID, orders.PaymentPending, orders.PaymentExpired, "")
				return err
			})
		}
		return nil
	case p.Status == orders.PaymentExpired:
		// The order ended unpaid; a payment taken afterwards is given back.
		sess, err := pay.GetSession(ctx, p.SessionID)
		if err != nil || sess.Status != payments.Paid {
			return err
		}
		return s.runner.InTx(ctx, func(t store.Tx) error {
			moved, err := s.orders.WithTx(t).SetPayment(ctx, o.ID, orders.PaymentExpired, orders.PaymentPaid, sess.PaymentID)
			if err != nil || !moved {
				return err
			}
			return s.cfg.Jobs.ScheduleRefund(ctx, t, o.ID)
		})
	}
	return nil
}

// PaymentMismatch is the failure reason of a CASH order whose payment did not match it.
const PaymentMismatch = "PAYMENT_MISMATCH"

// mismatched fails a CASH order whose provider says it was paid another amount or currency than
// the order's: nothing is fulfilled, the payment is refunded, and the operator is told (the
// error log).
func (s *Service) mismatched(ctx context.Context, o orders.Order, sess payments.Session, provider string) error {
	s.cfg.Log.ErrorContext(ctx, "a CASH order's payment does not match the order: refunded, not fulfilled",
		"order", o.ID, "provider", provider, "session", sess.ID, "paid", sess.Amount.String(), "paidCurrency", sess.Currency,
		"due", o.Partner.Amount.String(), "currency", s.cfg.Currency)
	return s.runner.InTx(ctx, func(t store.Tx) error {
		repo := s.orders.WithTx(t)
		moved, err := repo.Move(ctx, o.ID, orders.PendingPayment, orders.Failed, PaymentMismatch, nil)
		if err != nil || !moved {
			return err
		}
		if _, err := repo.SetPayment(ctx, o.ID, orders.PaymentPending, orders.PaymentPaid, sess.PaymentID); err != nil {
			return err
		}
		return s.cfg.Jobs.ScheduleRefund(ctx, t, o.ID)
	})
}

// confirmPaid moves a paid order on to fulfilment, and waits for it like a WALLET order.
func (s *Service) confirmPaid(ctx context.Context, o orders.Order, sess payments.Session, provider string) error {
	err := s.runner.InTx(ctx, func(t store.Tx) error {
		repo := s.orders.WithTx(t)
		moved, err := repo.Move(ctx, o.ID, orders.PendingPayment, orders.Initiated, "paid at "+provider, nil)
		if err != nil || !moved {
			return err
		}
		if _, err := repo.SetPayment(ctx, o.ID, orders.PaymentPending, orders.PaymentPaid, sess.PaymentID); err != nil {
			return err
		}
		return s.cfg.OrderJobs.ScheduleFulfilment(ctx, t, o.ID, s.now().Add(s.saga.Wait()))
	})
	if err != nil {
		return err
	}
	s.saga.FulfilWithin(ctx, o.ID)
	return nil
}

// RefundPayment gives back the payment of a CASH order that was paid but not fulfilled (FAILED,
// or REFUNDED after its session expired), for the refund job; the provider refunds once per
// order whatever the retries.
func (s *Service) RefundPayment(ctx context.Context, id uuid.UUID) error {
	o, err := s.orders.Repo().Get(ctx, id)
	if err != nil {
		return err
	}
	if o.Channel != orders.Partner || o.Partner.Payment.Status != orders.PaymentPaid || (o.Status != orders.Failed && o.Status != orders.Refunded) {
		return nil
	}
	pay := s.payments(o.Environment)
	if pay == nil {
		return fmt.Errorf("no payment provider is configured for the %s environment", o.Environment)
	}
	p := o.Partner.Payment
	if p.PaymentID == "" {
		sess, err := pay.GetSession(ctx, p.SessionID)
		if err != nil {
			return err
		}
		p.PaymentID = sess.PaymentID
	}
	if _, err := pay.Refund(ctx, payments.RefundRequest{SessionID: p.SessionID, PaymentID: p.PaymentID,
		Amount: o.Partner.Amount, Reference: "rf" + strings.ReplaceAll(o.ID.String(), "-", ""), Reason: "order " + string(o.Status)}); err != nil {
		return err
	}
	return s.runner.InTx(ctx, func(t store.Tx) error {
		_, err := s.orders.WithTx(t).SetPayment(ctx, o.ID, orders.PaymentPaid, orders.PaymentRefunded, "")
		return err
	})
}

// Refunds gives back what a failed partner order took, for the orders saga (orders.Refunder).
type Refunds struct {
	Partner store.Of[Repo]
	Jobs    Jobs
}

// RefundFailed implements orders.Refunder: a WALLET order's debit is credited back (once); a
// paid CASH order's payment refund is queued.
func (r Refunds) RefundFailed(ctx context.Context, t store.Tx, o orders.Order, reason string) error {
	if o.Partner == nil {
		return errors.New("not a partner order")
	}
	if o.Partner.Settlement == orders.Cash {
		if o.Partner.Payment.Status == orders.PaymentPaid {
			return r.Jobs.ScheduleRefund(ctx, t, o.ID)
		}
		return nil
	}
	wallet := r.Partner.WithTx(t)
	bal, err := wallet.LockWallet(ctx, o.GameID, o.Environment)
	if err != nil {
		return err
	}
	done, err := wallet.OrderEntryExists(ctx, o.ID, Refund)
	if err != nil || done {
		return err
	}
	id := o.ID
	_, err = wallet.Apply(ctx, Entry{GameID: o.GameID, Environment: o.Environment, Kind: Refund, Amount: o.Partner.Amount,
		BalanceAfter: bal + o.Partner.Amount, OrderID: &id, Reference: ""})
	return err
}
