package app

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/trace"

	"github.com/rewardsco/rewards/adapters/consolepage"
	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/httpapi/catalogueapi"
	"github.com/rewardsco/rewards/adapters/httpapi/coinsapi"
	"github.com/rewardsco/rewards/adapters/httpapi/ordersapi"
	"github.com/rewardsco/rewards/adapters/httpapi/partnerapi"
	"github.com/rewardsco/rewards/adapters/httpapi/playersapi"
	"github.com/rewardsco/rewards/adapters/httpapi/storefrontapi"
	"github.com/rewardsco/rewards/adapters/httpapi/studioapi"
	"github.com/rewardsco/rewards/adapters/httpapi/studiov1api"
	"github.com/rewardsco/rewards/adapters/httpapi/touchpointsapi"
	"github.com/rewardsco/rewards/adapters/httpapi/webhooksapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	mailadapter "github.com/rewardsco/rewards/adapters/mail"
	"github.com/rewardsco/rewards/adapters/metrics"
	paycashfree "github.com/rewardsco/rewards/adapters/payments/cashfree"
	paysandbox "github.com/rewardsco/rewards/adapters/payments/sandbox"
	paystripe "github.com/rewardsco/rewards/adapters/payments/stripe"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/localpg"
	"github.com/rewardsco/rewards/adapters/sms"
	"github.com/rewardsco/rewards/adapters/storepage"
	voucherhttp "github.com/rewardsco/rewards/adapters/vouchers"
	"github.com/rewardsco/rewards/adapters/vouchers/sandbox"
	"github.com/rewardsco/rewards/adapters/webhookhttp"
	"github.com/rewardsco/rewards/core/audit"
	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/coins"
	"github.com/rewardsco/rewards/core/console"
	"github.com/rewardsco/rewards/core/errs"
	"github.com/rewardsco/rewards/core/idempotency"
	"github.com/rewardsco/rewards/core/mail"
	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/sealed"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/storefront"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/touchpoints"
	"github.com/rewardsco/rewards/core/vouchers"
	"github.com/rewardsco/rewards/core/webhooks"
	fakecashfree "github.com/rewardsco/rewards/fakes/cashfree"
	fakestripe "github.com/rewardsco/rewards/fakes/stripe"
	fakevouchers "github.com/rewardsco/rewards/fakes/vouchers"
)

// DefaultPoolSize is the database pool's size unless DATABASE_URL sets pool_max_conns.
const DefaultPoolSize = 20

// Modules are the core use cases, wired to their adapters.
type Modules struct {
	Studios   *studio.Service
	Coins     *coins.Service
	Players   *players.Service
	Webhooks  *webhooks.Service
	Catalogue *catalogue.Service
	// CatalogueReads is the catalogue's read model, which Catalogue serves the store from;
	// Serve loads it at start-up and keeps it current (ReadModel.Run).
	CatalogueReads *catalogue.ReadModel
	Orders         *orders.Service
	Partner        *partner.Service
	// Touchpoints serves placements (2.0) and trees (1.0).
	Touchpoints *touchpoints.Service
	// Idempotency keeps the idempotency keys of every module.
	Idempotency *idempotency.Keeper
	// SandboxPayments is the test environment's built-in payment sandbox, whose pages the
	// server serves; nil when the test environment has a provider's test mode configured.
	SandboxPayments *paysandbox.Provider
	// StorePages are the service's own store pages ({REWARDS_PUBLIC_URL}/store/rewards/{id}),
	// what touchpoint links open for a game without a store of its own.
	StorePages *storepage.Pages
	// Storefront opens the store's web-view sessions (POST /player/store-session).
	Storefront *storefront.Service
	// Members are the studios' people and access tokens; Console is what they may do (the
	// studio API and the console pages both call it); Audit is the log of their changes.
	Members *members.Service
	Console *console.Service
	Audit   *audit.Log
	// ConsolePages are the studio console under /console.
	ConsolePages *consolepage.Handler
}

// External are the adapters of the outside world the modules use.
type External struct {
	// SecretKey is the master secret the modules' keys are derived from.
	SecretKey      string
	PlayerTokenTTL time.Duration
	OTPSender      players.OTPSender
	// Mail sends the console's email (invitations, password resets, notices to owners).
	Mail  mail.Sender
	Files players.FileStorage
	// OTPSendsPerHour caps OTP sends per game and environment an hour; 0 means the default.
	OTPSendsPerHour int
	// Now is the clock of the players and webhooks modules; nil means time.Now. Tests move it.
	Now func() time.Time
	// WebhookTransport sends webhook requests; WebhookRetryDelays nil means the default.
	WebhookTransport   webhooks.Transport
	WebhookRetryDelays []time.Duration
	// Currency is the deployment currency; PublicURL the address of the service's own links.
	Currency  string
	PublicURL string
	// Vouchers is the live environment's voucher provider; nil when none is configured.
	Vouchers vouchers.Provider
	// TestVouchers is the test environment's (REWARDS_TEST_VOUCHER_BASE_URL, a provider's
	// sandbox); nil means the built-in sandbox provider (adapters/vouchers/sandbox). Test orders
	// never reach Vouchers.
	TestVouchers vouchers.Provider
	// AllowHTTPURLs lets stored web addresses (images, sites, return addresses) be plain http:
	// outside production only.
	AllowHTTPURLs bool
	// FakeVoucherImages serves the logos of the in-process fake voucher provider at
	// PublicURL + FakeImagesPath (a local run; nil: none), so the addresses synced from it
	// outlive the fake's loopback port.
	FakeVoucherImages http.Handler
	// StockCacheTTL is how long the store's and partner API's reads keep a stock answer (zero:
	// 60 s).
	StockCacheTTL time.Duration
	// SandboxDelay is how long the built-in sandbox keeps SANDBOX_SLOW orders pending (zero:
	// its default).
	SandboxDelay time.Duration
	// VoucherWait, VoucherPoll and VoucherDeadline time provider orders (zero: the defaults).
	VoucherWait, VoucherPoll, VoucherDeadline time.Duration
	// Payments collects the live environment's partner CASH orders; nil when none is
	// configured. PaymentSessionTTL is how long a session stays open (zero: the default).
	Payments payments.Provider
	// TestPayments collects the test environment's (REWARDS_TEST_STRIPE_* or
	// REWARDS_TEST_CASHFREE_*); nil means the built-in sandbox payment page
	// (adapters/payments/sandbox). Test orders never reach Payments.
	TestPayments      payments.Provider
	PaymentSessionTTL time.Duration
	// OTPRetention and DeliveryRetention are how long OTP records and finished webhook
	// deliveries are kept (zero: the defaults of jobs.RetentionOptions).
	OTPRetention, DeliveryRetention time.Duration
	Log                             *slog.Logger
}

// NewModules wires every core module to PostgreSQL and the external adapters, registers each
// module's jobs on queue and opens it (jobs can be queued from then on; Start works them).
// A new module is one line here, one in its jobs (if it has any) and one in NewServer.
func NewModules(database *postgres.DB, queue *jobs.Queue, ext External) (Modules, error) {
	if ext.Log == nil {
		ext.Log = slog.New(slog.DiscardHandler)
	}
	games := postgres.NewStudioStore(database)
	keeper := idempotency.NewKeeper(database, postgres.NewIdempotencyStore(database))
	// One box for every code: a pool code moves to its order still sealed.
	box, err := sealed.New(deriveKey(ext.SecretKey, "codes"))
	if err != nil {
		return Modules{}, err
	}
	coinStore := postgres.NewCoinsStore(database, queue)
	catalogueStore := postgres.NewCatalogueStore(database)
	orderStore, partnerStore := postgres.NewOrdersStore(database), postgres.NewPartnerStore(database)
	testVouchers, testPayments, sandboxPayments := testProviders(database, catalogueStore, ext)
	liveStock, testStock := cachedStock(ext.Vouchers, ext.StockCacheTTL), cachedStock(testVouchers, ext.StockCacheTTL)
	// The store's reads (lists, fetches) take coin values and pool stock from memory; this
	// instance's own changes of either are served at once, other instances' within a second.
	coinValues, poolStock := coins.NewValues(), catalogue.NewPoolStock(nil)
	catalogueReads := newCatalogueReads(database, ext.Log)
	ordersSvc := orders.NewService(database, orderStore, coinStore, catalogueStore, keeper, orders.Config{
		// Purchases are planned from the store's memory too, and checked in their transaction.
		ReadModel: catalogueReads, CoinValues: coinValues,
		PoolStock: poolStock, Box: box, Provider: ext.Vouchers, TestProvider: testVouchers, Jobs: queue, Wait: ext.VoucherWait, Poll: ext.VoucherPoll, Deadline: ext.VoucherDeadline,
		PartnerRefunds: partner.Refunds{Partner: partnerStore, Jobs: queue},
	})
	// Every change of a studio's data writes its audit entry in the change's transaction.
	auditLog := audit.New(database, postgres.NewAuditStore(database))
	studios := studio.NewService(games, auditLog)
	membersSvc := members.NewService(database, postgres.NewMembersStore(database), auditLog, members.Config{
		Mail: ext.Mail, PublicURL: ext.PublicURL, Now: ext.Now, Box: &box, Log: ext.Log.With("component", "members"),
	})
	hooks, err := webhooks.NewService(postgres.NewWebhooksStore(database, queue), webhooks.Options{
		SecretKey: deriveKey(ext.SecretKey, "webhook-secret"), RetryDelays: ext.WebhookRetryDelays, Transport: ext.WebhookTransport,
		Now: ext.Now, Audit: auditLog, Notifier: membersSvc, Log: ext.Log.With("component", "webhooks"),
	})
	if err != nil {
		return Modules{}, err
	}
	catalogueSvc := catalogue.NewService(database, catalogueStore, coinStore, games, catalogue.Config{
		Currency: ext.Currency, Provider: liveStock, TestProvider: testStock, Box: box, AllowHTTPURLs: ext.AllowHTTPURLs, PublicURL: ext.PublicURL, Cooldowns: ordersSvc,
		ReadModel: catalogueReads, CoinValues: coinValues, PoolStock: poolStock, Audit: auditLog,
	})
	coinsSvc := coins.NewService(database, coinStore, games, keeper)
	coinsSvc.Values, coinsSvc.Audit = coinValues, auditLog
	touchpointStore := postgres.NewTouchpointsStore(database)
	playersSvc := players.NewService(database, postgres.NewPlayersStore(database), games, players.Config{
		TokenKey: deriveKey(ext.SecretKey, "player-token"), OTPKey: deriveKey(ext.SecretKey, "otp"), TokenTTL: ext.PlayerTokenTTL,
		Sender: ext.OTPSender, Files: ext.Files, Now: ext.Now, Audit: auditLog, OTPSendsPerHour: ext.OTPSendsPerHour,
	})
	sessions := storefront.New(postgres.NewStorefrontStore(database).Repo(), playersSvc, deriveKey(ext.SecretKey, "store-session"), ext.Now)
	m := Modules{
		Studios:        studios,
		Coins:          coinsSvc,
		Catalogue:      catalogueSvc,
		CatalogueReads: catalogueReads,
		Orders:         ordersSvc,
		Partner: partner.NewService(database, partnerStore, orderStore, postgres.NewPartnerWalletOrders(database), studios, studios, ordersSvc, partner.Config{
			Currency: ext.Currency, Payments: ext.Payments, TestPayments: testPayments, StockLive: liveStock, StockTest: testStock, Box: box, Jobs: queue, OrderJobs: queue,
			SessionTTL: ext.PaymentSessionTTL, ReturnURL: ext.PublicURL + "/payments/return", Log: ext.Log.With("component", "partner"), AllowHTTPURLs: ext.AllowHTTPURLs, Audit: auditLog,
		}),
		Touchpoints: touchpoints.NewService(touchpointStore, touchpoints.Config{
			Currency: ext.Currency, DefaultStoreURL: storeURL(ext.PublicURL), Now: ext.Now, AllowHTTPURLs: ext.AllowHTTPURLs, Stock: catalogueSvc,
			Reads:      treeReads{model: catalogueReads, free: catalogueSvc.FreeCodesOf},
			CoinValues: treeCoinValues{values: coinValues, coins: coinStore},
			Audit:      auditLog,
		}),
		Storefront:      sessions,
		Webhooks:        hooks,
		Idempotency:     keeper,
		SandboxPayments: sandboxPayments,
		Players:         playersSvc,
		Members:         membersSvc,
		Audit:           auditLog,
	}
	addPages(&m, database, touchpointStore, ext)
	registerJobs(database, queue, m, ext)
	return m, queue.Open()
}

// newCatalogueReads is the catalogue's read model over PostgreSQL's snapshots; a failed reload
// is logged and the last snapshot served.
func newCatalogueReads(database *postgres.DB, log *slog.Logger) *catalogue.ReadModel {
	reads := catalogue.NewReadModel(postgres.NewCatalogueSnapshots(database), nil)
	reads.OnError = func(err error) { log.Warn("catalogue read model: serving the last snapshot", "err", err) }
	return reads
}

// addPages builds what people use in a browser over the modules of m: the player's store, the
// console's façade and its pages.
func addPages(m *Modules, database *postgres.DB, touchpointStore store.Of[touchpoints.Repo], ext External) {
	secure := strings.HasPrefix(ext.PublicURL, "https://")
	m.StorePages = storepage.New(storepage.Config{
		Catalogue: storeCatalogue{m.Catalogue, touchpointStore}, Currency: ext.Currency,
		Shelf: m.Catalogue, Sessions: m.Storefront, Orders: m.Orders, Wallet: m.Coins, Games: storeGames{m.Studios, m.Players}, Profiles: m.Players,
		SecureCookies: secure, Log: ext.Log.With("component", "store"),
	})
	m.Console = console.New(console.Deps{Studio: m.Studios, Partner: m.Partner, Touchpoints: m.Touchpoints, Webhooks: m.Webhooks,
		Players: m.Players, Coins: m.Coins, Orders: m.Orders, Audit: m.Audit, Store: postgres.NewConsoleStore(database)})
	m.ConsolePages = consolepage.New(consolepage.Config{Console: m.Console, Members: m.Members, PublicURL: ext.PublicURL,
		SecureCookies: secure, Log: ext.Log.With("component", "console")})
}

// testProviders are the test environment's voucher and payment providers: the configured ones,
// else the built-in sandboxes (sandboxPayments is the payment sandbox when it is used).
func testProviders(database *postgres.DB, catalogueStore store.Of[catalogue.Repo], ext External) (
	testVouchers vouchers.Provider, testPayments payments.Provider, sandboxPayments *paysandbox.Provider) {
	testVouchers = ext.TestVouchers
	if testVouchers == nil {
		testVouchers = sandboxVouchers(catalogueStore, ext.SandboxDelay)
	}
	testPayments = ext.TestPayments
	if testPayments == nil {
		sandboxPayments = paysandbox.New(postgres.NewSandboxPayments(database), ext.PublicURL)
		testPayments = sandboxPayments
	}
	return testVouchers, testPayments, sandboxPayments
}

// cachedStock puts the stock cache in front of a provider: the store's and the partner API's
// reads of stock go through it (60 s); orders, and a purchase's own stock check, ask the
// provider.
func cachedStock(p vouchers.Provider, ttl time.Duration) vouchers.Provider {
	if p == nil {
		return nil
	}
	if _, builtIn := p.(*sandbox.Provider); builtIn {
		return p // in-process, and it keeps its products' lookups itself (sandbox.WithProductTTL)
	}
	return voucherhttp.NewStockCache(p, ttl)
}

// registerJobs gives the job queue each module's workers and periodic jobs.
func registerJobs(database *postgres.DB, queue *jobs.Queue, m Modules, ext External) {
	jobs.RegisterWebhooks(queue, m.Webhooks, postgres.NewWebhookOutbox(database))
	jobs.RegisterOrders(queue, m.Orders, ext.VoucherWait, ext.Log.With("component", "orders"))
	jobs.RegisterPartner(queue, m.Partner, ext.Log.With("component", "partner"))
	jobs.RegisterIdempotency(queue, m.Idempotency, ext.Log.With("component", "idempotency"))
	jobs.RegisterRetention(queue, postgres.NewRetention(database),
		jobs.RetentionOptions{OTP: ext.OTPRetention, Deliveries: ext.DeliveryRetention}, ext.Log.With("component", "retention"))
}

// storeURL is the store address of a game without one: the service's own store pages.
func storeURL(publicURL string) string {
	if publicURL == "" {
		return ""
	}
	return publicURL + storepage.Path
}

// storeCatalogue is what the store pages read: rewards from the catalogue, products through
// the touchpoints' storage (which reads the catalogue's products).
type storeCatalogue struct {
	*catalogue.Service
	touchpoints store.Of[touchpoints.Repo]
}

func (c storeCatalogue) Products(ctx context.Context, ids []string) ([]catalogue.Product, error) {
	return c.touchpoints.Repo().Products(ctx, ids)
}

// storeGames is what the store pages read of a game: the game (studio) and its store settings
// (players).
type storeGames struct {
	*studio.Service
	settings *players.Service
}

func (g storeGames) StoreSettings(ctx context.Context, gameID uuid.UUID) (players.StoreSettings, error) {
	return g.settings.StoreSettings(ctx, gameID)
}

// FakeImagesPath is where a local run serves the in-process fake voucher provider's logos
// ({REWARDS_PUBLIC_URL}/fakes/vouchers/images/…).
const FakeImagesPath = "/fakes"

// sandboxVouchers is the built-in voucher provider of the test environment, which knows the
// catalogue's products (synced from the live provider) through the catalogue's storage.
func sandboxVouchers(cat store.Of[catalogue.Repo], delay time.Duration) *sandbox.Provider {
	var opts []sandbox.Option
	if delay > 0 {
		opts = append(opts, sandbox.WithDelay(delay))
	}
	return sandbox.New(func(ctx context.Context, productID string) (sandbox.Product, error) {
		r, err := cat.Repo().RewardByProviderProduct(ctx, productID)
		if errs.CodeOf(err) == catalogue.ErrRewardNotFound.Code {
			return sandbox.Product{}, sandbox.ErrUnknownProduct
		}
		if err != nil {
			return sandbox.Product{}, err
		}
		return sandbox.Product{Brand: r.BrandCode, Variable: r.ValueType == catalogue.Range,
			Denominations: r.Denominations, Min: r.MinValue, Max: r.MaxValue}, nil
	}, opts...)
}

// ServerConfig is what the HTTP server needs beyond the modules.
type ServerConfig struct {
	Log   *slog.Logger
	Hosts httpapi.Hosts
	// Currency is the deployment currency, INR or USD.
	Currency   string
	AdminToken string
	// Ready reports whether the service can serve traffic.
	Ready        func(context.Context) error
	MaxBodyBytes int64
	// PublicURL is the service's own address (REWARDS_PUBLIC_URL), for the documents' servers.
	PublicURL string
	// Metrics counts requests and Gatherer is served at /metrics (nil: none); TracerProvider
	// traces requests (nil: no tracing).
	Metrics        *metrics.Metrics
	Gatherer       prometheus.Gatherer
	TracerProvider trace.TracerProvider
	// FakeVoucherImages is External.FakeVoucherImages (nil: none).
	FakeVoucherImages http.Handler
	// DemoStore opens the demo player's store at DemoStorePath (a local run with the demo
	// seeded; nil: none).
	DemoStore http.Handler
}

// NewServer builds the HTTP API: the shared kit, then each module's operations (one line a
// module; the docs page lists their tags in this order, the operator API last).
func NewServer(m Modules, cfg ServerConfig) *httpapi.Server {
	s := httpapi.New(httpapi.Config{
		Log:                cfg.Log,
		Hosts:              cfg.Hosts,
		AuthenticateKey:    m.Studios.Authenticate,
		OriginAllowed:      m.Studios.OriginAllowed,
		AuthenticatePlayer: m.Players.Authenticate,
		AdminToken:         cfg.AdminToken,
		Ready:              cfg.Ready,
		MaxBodyBytes:       cfg.MaxBodyBytes,
		Version:            Release(),
		PublicURL:          cfg.PublicURL,
		Metrics:            cfg.Metrics,
		Gatherer:           cfg.Gatherer,
		TracerProvider:     cfg.TracerProvider,

		// Distribute and deduct of a game with serverOnlyCoinMovements need its server secret.
		AuthorizeCoinMovement: m.Studios.AuthorizeCoinMovement,
	})
	coinsapi.Register(s, m.Coins, cfg.Currency)
	catalogueapi.Register(s, m.Catalogue)
	ordersapi.Register(s, m.Orders)
	partnerapi.Register(s, m.Partner)
	playersapi.Register(s, m.Players)
	touchpointsapi.Register(s, m.Touchpoints)
	webhooksapi.Register(s, m.Webhooks)
	studioapi.Register(s, m.Studios)
	studioapi.RegisterMembers(s, m.Studios, m.Members)
	storefrontapi.Register(s, m.Storefront, cfg.PublicURL)
	studiov1api.Register(s, studiov1api.Deps{Members: m.Members, Console: m.Console})
	if m.ConsolePages != nil {
		m.ConsolePages.Routes(s.Router())
	}
	if m.StorePages != nil {
		// The player's store: what POST /player/store-session's link opens, and the pages a
		// touchpoint's link opens when the game has no store of its own.
		s.Router().Handle(storepage.Path, m.StorePages)
		s.Router().Handle(storepage.Path+"/*", m.StorePages)
	}
	if cfg.DemoStore != nil {
		s.Router().Handle(DemoStorePath, cfg.DemoStore)
	}
	if cfg.FakeVoucherImages != nil {
		s.Router().Handle(FakeImagesPath+"/vouchers/images/*", cfg.FakeVoucherImages)
	}
	if m.SandboxPayments != nil {
		// The payer's page of a test-environment CASH order; its Pay and Cancel reconcile the
		// order at once, as a provider's webhook would.
		s.Router().Handle(paysandbox.PagePath+"*", m.SandboxPayments.Handler(func(ctx context.Context, orderID string) error {
			id, err := uuid.Parse(orderID)
			if err != nil {
				return err
			}
			return m.Partner.Reconcile(ctx, id)
		}))
	}
	return s
}

// OpenAPIYAML returns the public OpenAPI document (every operation but the operator API's),
// as served at /openapi.yaml.
func OpenAPIYAML() ([]byte, error) {
	return NewServer(Modules{}, documentConfig()).API.OpenAPI().YAML()
}

// OperatorOpenAPIYAML returns the operator API's OpenAPI document, as served (behind the
// operator token) at /admin/v1/openapi.yaml.
func OperatorOpenAPIYAML() ([]byte, error) {
	return NewServer(Modules{}, documentConfig()).OperatorAPI.OpenAPI().YAML()
}

// deriveKey gives each use of the master secret its own key.
func deriveKey(secret, purpose string) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte(purpose))
	return m.Sum(nil)
}

// external builds the adapters cfg selects, announcing those not for production. In
// development, outside systems with no address configured are served by the in-process fakes
// (devFakes); stop ends them.
func external(cfg Config, log *slog.Logger, tp trace.TracerProvider) (ext External, devFakes bool, stop func(), err error) {
	ext, err = adapters(cfg, log, tp)
	if err != nil {
		return External{}, false, nil, err
	}
	fakes := &devFakeSet{}
	switch {
	case cfg.VoucherBaseURL != "":
		ext.Vouchers = voucherhttp.New(cfg.VoucherBaseURL, cfg.VoucherAPIKey,
			voucherhttp.WithHTTPClient(&http.Client{Transport: providerRoundTripper(tp)}))
	case cfg.Mode == Development:
		url, err := fakes.start(cfg.PublicURL)
		if err != nil {
			return External{}, false, nil, fmt.Errorf("start the in-process fakes: %w", err)
		}
		ext.Vouchers, devFakes = voucherhttp.New(url+"/vouchers", "",
			voucherhttp.WithHTTPClient(&http.Client{Transport: providerRoundTripper(tp)})), true
		ext.FakeVoucherImages = fakes.vouchers.Images()
		log.Warn("the voucher provider is the in-process fake (REWARDS_VOUCHER_BASE_URL unset; not for production)", "url", url+"/vouchers",
			"logos", cfg.PublicURL+FakeImagesPath+"/vouchers/images/")
	default:
		log.Warn("no voucher provider is configured (REWARDS_VOUCHER_BASE_URL): gift cards cannot be synced or bought")
	}
	if cfg.TestVoucherBaseURL != "" {
		ext.TestVouchers = voucherhttp.New(cfg.TestVoucherBaseURL, cfg.TestVoucherAPIKey,
			voucherhttp.WithHTTPClient(&http.Client{Transport: providerRoundTripper(tp)}))
		log.Info("test-environment orders use the voucher provider's sandbox", "url", cfg.TestVoucherBaseURL)
	} else {
		log.Info("test-environment orders use the built-in sandbox voucher provider (SANDBOX- codes; REWARDS_TEST_VOUCHER_BASE_URL unset)")
	}
	ext.PaymentSessionTTL = cfg.PaymentSessionTTL
	ext.Payments, err = paymentProvider(cfg, log, fakes, tp)
	if err != nil {
		fakes.stop()
		return External{}, false, nil, err
	}
	ext.TestPayments = testPaymentProvider(cfg, log, tp)
	return ext, devFakes, fakes.stop, nil
}

// devFakeSet serves the fakes of fakes/ (voucher provider, Stripe, Cashfree) on one loopback
// port for a local run, started when first needed. The port is new at each start, so the
// voucher fake names its logos under the service's own address (FakeImagesPath), where the
// server serves them: a brand's logo synced by one run still loads in the next.
type devFakeSet struct {
	url      string
	vouchers *fakevouchers.Provider
	close    func()
}

// stop ends the fakes, if they were started.
func (f *devFakeSet) stop() {
	if f.close != nil {
		f.close()
	}
}

// start starts the fakes once; the payment fakes send their webhooks to publicURL.
func (f *devFakeSet) start(publicURL string) (string, error) {
	if f.url != "" {
		return f.url, nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	f.url = "http://" + ln.Addr().String()
	mux := http.NewServeMux()
	f.vouchers = fakevouchers.New(fakevouchers.WithImageBase(publicURL + FakeImagesPath))
	f.vouchers.Register(mux)
	st := fakestripe.New(fakestripe.WithWebhookTarget(publicURL), fakestripe.WithPublicURL(f.url+"/stripe"))
	st.Register(mux)
	cf := fakecashfree.New(fakecashfree.WithWebhookTarget(publicURL))
	cf.Register(mux)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	f.close = func() { _ = srv.Close(); st.Close(); cf.Close() }
	return f.url, nil
}

// paymentCreds are one environment's payment provider credentials.
type paymentCreds struct {
	stripeKey, stripeWebhookSecret, stripeBase string
	cashfreeID, cashfreeSecret, cashfreeBase   string
}

func (c paymentCreds) configured(provider string) bool {
	if provider == "stripe" {
		return c.stripeKey != "" || c.stripeBase != ""
	}
	return c.cashfreeID != "" || c.cashfreeBase != ""
}

// paymentProvider builds the payment provider of the live environment's CASH orders that cfg
// selects: the real adapter when it has credentials or a base URL, the in-process fake in
// development, none otherwise.
func paymentProvider(cfg Config, log *slog.Logger, fakes *devFakeSet, tp trace.TracerProvider) (payments.Provider, error) {
	creds := paymentCreds{cfg.StripeSecretKey, cfg.StripeWebhookSecret, cfg.StripeBaseURL,
		cfg.CashfreeClientID, cfg.CashfreeClientSecret, cfg.CashfreeBaseURL}
	if !creds.configured(cfg.PaymentProvider) {
		if cfg.Mode != Development {
			log.Warn("no payment provider is configured: live partner CASH orders fail with PAYMENT_INIT_FAILED", "provider", cfg.PaymentProvider)
			return nil, nil
		}
		url, err := fakes.start(cfg.PublicURL)
		if err != nil {
			return nil, fmt.Errorf("start the in-process fakes: %w", err)
		}
		base := url + "/" + cfg.PaymentProvider
		log.Warn("the live payment provider is the in-process fake (not for production)", "provider", cfg.PaymentProvider, "url", base)
		creds = paymentCreds{"sk_test_fake", fakestripe.DefaultWebhookSecret, base, "fake-client", "fake-client-secret", base}
	}
	return paymentAdapter(cfg.PaymentProvider, creds, tp), nil
}

// testPaymentProvider builds the test environment's payment provider from the REWARDS_TEST_*
// credentials; nil (the built-in sandbox) when none are set. Test orders never use the live
// credentials.
func testPaymentProvider(cfg Config, log *slog.Logger, tp trace.TracerProvider) payments.Provider {
	creds := paymentCreds{cfg.TestStripeSecretKey, cfg.TestStripeWebhookSecret, cfg.TestStripeBaseURL,
		cfg.TestCashfreeClientID, cfg.TestCashfreeClientSecret, cfg.TestCashfreeBaseURL}
	if !creds.configured(cfg.PaymentProvider) {
		log.Info("test-environment CASH orders use the built-in sandbox payment page (no REWARDS_TEST_STRIPE_* / REWARDS_TEST_CASHFREE_* set)",
			"page", cfg.PublicURL+paysandbox.PagePath+"{id}")
		return nil
	}
	if creds.cashfreeBase == "" {
		creds.cashfreeBase = "https://sandbox.cashfree.com"
	}
	return paymentAdapter(cfg.PaymentProvider, creds, tp)
}

func paymentAdapter(provider string, c paymentCreds, tp trace.TracerProvider) payments.Provider {
	if provider == "stripe" {
		return paystripe.New(paystripe.Config{SecretKey: c.stripeKey, WebhookSecret: c.stripeWebhookSecret, BaseURL: c.stripeBase,
			HTTPClient: &http.Client{Timeout: paystripe.DefaultTimeout, Transport: providerRoundTripper(tp)}})
	}
	return paycashfree.New(paycashfree.Config{ClientID: c.cashfreeID, ClientSecret: c.cashfreeSecret, BaseURL: c.cashfreeBase,
		HTTPClient: &http.Client{Timeout: paycashfree.DefaultTimeout, Transport: providerRoundTripper(tp)}})
}

func adapters(cfg Config, log *slog.Logger, tp trace.TracerProvider) (External, error) {
	ext := External{Log: log, Currency: cfg.Currency, PublicURL: cfg.PublicURL, AllowHTTPURLs: cfg.Mode != Production,
		VoucherWait: cfg.VoucherWait, VoucherPoll: cfg.VoucherPoll, VoucherDeadline: cfg.VoucherDeadline, PlayerTokenTTL: cfg.PlayerTokenTTL, SecretKey: cfg.SecretKey, Files: filestore.Disk{Dir: cfg.UploadDir},
		OTPSendsPerHour: cfg.OTPSendsPerHour,
		OTPRetention:    cfg.OTPRetention, DeliveryRetention: cfg.DeliveryRetention,
		WebhookRetryDelays: cfg.WebhookRetryDelays,
		WebhookTransport: webhookhttp.New(webhookhttp.Options{AllowHTTP: cfg.WebhookAllowHTTP, AllowPrivate: cfg.WebhookAllowPrivate,
			WrapTransport: func(rt http.RoundTripper) http.RoundTripper { return tracedTransport(tp, rt) }})}
	if cfg.WebhookAllowHTTP || cfg.WebhookAllowPrivate {
		log.Warn("webhook targets may be plain http or non-public addresses (REWARDS_WEBHOOK_ALLOW_HTTP/ALLOW_PRIVATE; local development and tests only)")
	}
	if ext.SecretKey == "" {
		secret, err := localSecret(filepath.Join(cfg.DataDir, "secret-key"))
		if err != nil {
			return External{}, err
		}
		ext.SecretKey = secret
		log.Warn("REWARDS_SECRET_KEY is not set: using a generated key kept in the data directory (not for production)")
	}
	switch cfg.SMSProvider {
	case "twilio":
		twilio := sms.NewTwilio(cfg.SMSBaseURL, cfg.SMSAccountSID, cfg.SMSAuthToken, cfg.SMSFrom)
		twilio.Client.Transport = providerRoundTripper(tp)
		ext.OTPSender = twilio
	default:
		ext.OTPSender = sms.Log{Logger: log.With("component", "sms")}
		log.Warn("OTP codes are written to this log instead of being sent (REWARDS_SMS_PROVIDER=log; not for production)")
	}
	sender, err := mailadapter.FromConfig(cfg.SMTPURL, cfg.MailFrom, log.With("component", "mail"))
	if err != nil {
		return External{}, err
	}
	if cfg.SMTPURL == "" {
		log.Warn("email (console invitations and password resets) is written to this log instead of being sent (REWARDS_SMTP_URL unset; not for production)")
	}
	ext.Mail = sender
	return ext, nil
}

// Database is an open, migrated database, and what must happen to close it.
type Database struct {
	Pool  *pgxpool.Pool
	close func()
}

// Close closes the pool and stops the private server, if one was started.
func (d *Database) Close() { d.close() }

// OpenDatabase connects to cfg.DatabaseURL, or in development with none set starts the private
// PostgreSQL under the data directory, and applies pending migrations.
func OpenDatabase(ctx context.Context, cfg Config, log *slog.Logger) (*Database, error) {
	url, stop := cfg.DatabaseURL, func() {}
	if url == "" {
		if cfg.Mode == Production {
			return nil, errors.New("DATABASE_URL is required in production mode")
		}
		pgLog := log.With("component", "postgres")
		srv, err := localpg.Start(ctx, localpg.Options{
			DataDir: filepath.Join(cfg.DataDir, "postgres"),
			Log:     func(line string) { pgLog.Debug(line) },
		})
		if err != nil {
			return nil, fmt.Errorf("DATABASE_URL is not set, so a private PostgreSQL was to be started: %w", err)
		}
		log.Info("private PostgreSQL started (not for production)", "data", filepath.Join(cfg.DataDir, "postgres"), "port", srv.Port)
		url, stop = srv.URL, srv.Stop
	}
	poolCfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		stop()
		return nil, fmt.Errorf("DATABASE_URL: %w", err)
	}
	if poolCfg.ConnConfig.ConnectTimeout == 0 {
		// An unreachable server must fail a connection attempt, not hang it (connect_timeout in
		// DATABASE_URL overrides this).
		poolCfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	if !strings.Contains(url, "pool_max_conns") {
		// pgx's default (max(4, CPUs)) is too small once request handlers and the webhook
		// workers share the pool; pool_max_conns in DATABASE_URL overrides this.
		poolCfg.MaxConns = DefaultPoolSize
	}
	// Migrations may run long on a large database: they get a pool of their own, without the
	// request bounds below.
	migrations, err := pgxpool.NewWithConfig(ctx, poolCfg.Copy())
	if err != nil {
		stop()
		return nil, fmt.Errorf("database: %w", err)
	}
	err = postgres.Migrate(ctx, migrations, log, jobs.Migrate)
	migrations.Close()
	if err != nil {
		stop()
		return nil, err
	}
	boundStatements(poolCfg)
	// Round trips are counted (one atomic add each) for the load benchmark's per-request figure.
	poolCfg.ConnConfig.Tracer = postgres.RoundTripCounter{}
	postgres.ConfigurePool(poolCfg)
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		stop()
		return nil, fmt.Errorf("database: %w", err)
	}
	return &Database{Pool: pool, close: func() { pool.Close(); stop() }}, nil
}

// boundStatements makes the database answer within bounds: a statement runs at most 5 s and
// waits at most 2 s for a lock (unless DATABASE_URL sets its own), so that a stalled server
// gives requests a 503 instead of a hang and never holds the pool shared with the job queue.
func boundStatements(cfg *pgxpool.Config) {
	for name, value := range map[string]string{"statement_timeout": "5000", "lock_timeout": "2000"} {
		if _, set := cfg.ConnConfig.RuntimeParams[name]; !set {
			cfg.ConnConfig.RuntimeParams[name] = value
		}
	}
}

// Serve runs the service until ctx is cancelled, then shuts down gracefully.
func Serve(ctx context.Context, cfg Config, log *slog.Logger, out io.Writer) error {
	if cfg.Mode == Development {
		log.Warn("running in development mode: local defaults are on; set REWARDS_MODE=production in production")
	}
	defer tuneGC(os.Getenv, log)()
	tracing, err := SetupTracing(ctx, os.Getenv, log)
	if err != nil {
		return err
	}
	// Runs last: the spans of the shutdown itself are flushed too.
	defer flushTraces(tracing, log)
	// Listen first: a port in use fails at once, and with port 0 the public address's default
	// (http://localhost:<port>) is known before anything uses it.
	listener, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.HTTPAddr, err)
	}
	defer listener.Close()
	if cfg.PublicURL == "" {
		cfg.PublicURL = fmt.Sprintf("http://localhost:%d", listener.Addr().(*net.TCPAddr).Port)
	}
	database, err := OpenDatabase(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer database.Close()
	ext, devFakes, stopFakes, err := external(cfg, log, tracing.Provider)
	if err != nil {
		return err
	}
	defer stopFakes()
	registry, counters := NewMetrics()
	queue := jobs.New(database.Pool, jobs.Options{
		Workers:     map[string]int{jobs.QueueWebhooks: cfg.WebhookWorkers},
		Logger:      log.With("component", "river"),
		RescueAfter: cfg.JobRescueAfter,
		Metrics:     counters,
	})
	db := postgres.NewDB(database.Pool, postgres.WithMetrics(counters), postgres.WithTracing(tracing.Provider))
	mods, err := NewModules(db, queue, ext)
	if err != nil {
		return err
	}
	RegisterCollectors(registry, database.Pool, db, queue)
	loadCatalogue(ctx, mods, log)
	stopQueue, err := startQueue(ctx, cfg, log, queue)
	if err != nil {
		return err
	}
	defer stopQueue()

	if cfg.AdminToken == "" {
		if cfg.AdminToken, err = localSecret(filepath.Join(cfg.DataDir, "admin-token")); err != nil {
			return err
		}
	}
	demo, demoShop, err := seedDemoData(ctx, cfg, mods, devFakes)
	if err != nil {
		return err
	}

	handler := NewServer(mods, ServerConfig{
		Log:          log,
		Currency:     cfg.Currency,
		Hosts:        httpapi.Hosts{Live: cfg.LiveHosts, Dev: cfg.DevHosts},
		PublicURL:    cfg.PublicURL,
		AdminToken:   cfg.AdminToken,
		Ready:        readiness(database.Pool),
		MaxBodyBytes: cfg.MaxBodyBytes,

		Metrics: counters, Gatherer: registry, TracerProvider: tracing.Provider,
		FakeVoucherImages: ext.FakeVoucherImages,
		DemoStore:         demoShop,
	}).Handler()
	return serveUntilDone(ctx, cfg, log, out, listener, handler, demo)
}

// flushTraces sends the spans not yet exported, waiting at most 5 s.
func flushTraces(tracing Tracing, log *slog.Logger) {
	flushCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tracing.Shutdown(flushCtx); err != nil {
		log.Warn("trace flush cut short", "err", err)
	}
}

// loadCatalogue loads the catalogue's read model, which the store is served from, before the
// first request, then keeps it current with its watcher (LISTEN and a periodic version check)
// until ctx ends.
func loadCatalogue(ctx context.Context, mods Modules, log *slog.Logger) {
	loadStart := time.Now()
	if err := mods.CatalogueReads.Refresh(ctx); err != nil {
		log.Warn("catalogue read model not loaded at start-up: the first store request loads it", "err", err)
	} else if snap, err := mods.CatalogueReads.Current(ctx); err == nil {
		log.Info("catalogue read model loaded", "rewards", snap.Rewards(), "took", time.Since(loadStart).Round(time.Millisecond))
	}
	go mods.CatalogueReads.Run(ctx)
}

// startQueue starts the job queue and returns what stops it. The queue runs until the HTTP
// server has drained (Serve's deferred stop), so requests in flight still enqueue.
func startQueue(ctx context.Context, cfg Config, log *slog.Logger, queue *jobs.Queue) (stop func(), err error) {
	queueCtx, cancelQueue := context.WithCancel(context.WithoutCancel(ctx))
	if err := queue.Start(queueCtx); err != nil {
		cancelQueue()
		return nil, fmt.Errorf("start job queue: %w", err)
	}
	return func() {
		defer cancelQueue()
		stopCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if err := queue.Stop(stopCtx); err != nil {
			log.Warn("job queue stop cut short", "err", err)
		}
	}, nil
}

// seedDemoData seeds the demo studio when cfg asks for it, and outside production the demo
// shopper's store link.
func seedDemoData(ctx context.Context, cfg Config, mods Modules, devFakes bool) (*DemoCredentials, http.Handler, error) {
	if !cfg.DemoSeed {
		return nil, nil, nil
	}
	demo, err := SeedDemo(ctx, mods, filepath.Join(cfg.DataDir, "demo.json"), cfg.PublicURL, devFakes)
	if err != nil {
		return nil, nil, fmt.Errorf("seed demo data: %w", err)
	}
	if cfg.Mode == Production {
		return demo, nil, nil
	}
	shopper, err := seedDemoShopper(ctx, mods, demo)
	if err != nil {
		return nil, nil, err
	}
	return demo, demoStore(mods.Storefront, shopper), nil
}

// serveUntilDone serves handler on listener until ctx ends, then drains the requests in flight
// within cfg.ShutdownTimeout.
func serveUntilDone(ctx context.Context, cfg Config, log *slog.Logger, out io.Writer, listener net.Listener,
	handler http.Handler, demo *DemoCredentials) error {
	server := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       httpapi.BodyReadTimeout,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- server.Serve(listener) }()
	log.Info("listening", "addr", listener.Addr().String(), "version", Release())
	printBanner(out, cfg, listener.Addr(), demo)

	select {
	case err := <-serveErr:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", cfg.ShutdownTimeout)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := server.Shutdown(shutdownCtx); err != nil {
		log.Warn("graceful shutdown cut short", "err", err)
	}
	log.Info("stopped")
	return nil
}

// readiness answers /readyz: the database must answer a ping within 2 s, so that a stalled
// server is reported unready rather than hanging the probe.
func readiness(pool *pgxpool.Pool) func(context.Context) error {
	return func(ctx context.Context) error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		return pool.Ping(ctx)
	}
}

// localSecret returns the token kept in path, generating it on first use.
func localSecret(path string) (string, error) {
	if b, err := os.ReadFile(path); err == nil {
		return strings.TrimSpace(string(b)), nil
	}
	token := "rat_" + rand.Text() + rand.Text()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(token+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("write %s: %w", path, err)
	}
	return token, nil
}

func printBanner(out io.Writer, cfg Config, addr net.Addr, demo *DemoCredentials) {
	port := addr.(*net.TCPAddr).Port
	fmt.Fprintf(out, "\nRewards is up.\n")
	fmt.Fprintf(out, "  API docs:        http://localhost:%d/docs\n", port)
	fmt.Fprintf(out, "  OpenAPI:         http://localhost:%d/openapi.json\n", port)
	fmt.Fprintf(out, "  Operator docs:   http://localhost:%d/admin/docs   (operator token; a browser asks for it as the password, any user name)\n", port)
	fmt.Fprintf(out, "  Operator OpenAPI: http://localhost:%d/admin/v1/openapi.json   (operator token)\n", port)
	if cfg.Mode == Production {
		// Never printed in production: the banner goes to logs that many people read.
		fmt.Fprintf(out, "  Operator token:  the value of REWARDS_ADMIN_TOKEN (not shown in production)\n")
	} else {
		fmt.Fprintf(out, "  Operator token:  %s   (Authorization: Bearer …, on /admin/v1)\n", cfg.AdminToken)
	}
	if demo != nil {
		fmt.Fprintf(out, "  Demo studio:     %s (%s)\n", demo.StudioName, demo.StudioID)
		fmt.Fprintf(out, "  Demo game:       %s (%s)\n", demo.GameName, demo.GameID)
		fmt.Fprintf(out, "  Demo coin:       %s (%s)\n", demo.CoinName, demo.CoinID)
		if demo.OwnerEmail != "" && cfg.Mode != Production {
			fmt.Fprintf(out, "  Studio console:  %s/console   (the demo studio's owner: %s, first-run password %s)\n",
				cfg.PublicURL, demo.OwnerEmail, demo.OwnerPassword)
		}
		fmt.Fprintf(out, "  Studio API docs: http://localhost:%d/studio/docs\n", port)
		fmt.Fprintf(out, "  Test API key:    %s   (development hosts, e.g. localhost:%d)\n", demo.TestKey, port)
		fmt.Fprintf(out, "  Live API key:    %s   (live hosts, e.g. live.localhost:%d)\n", demo.LiveKey, port)
		if demo.CatalogueSynced {
			fmt.Fprintf(out, "  Catalogue:       the fake voucher provider's gift cards (%d synced at the first run; logos under %s%s/)\n",
				demo.Synced, cfg.PublicURL, FakeImagesPath)
		}
		fmt.Fprintf(out, "  Store pages:     %s%s/rewards/{id}   (the demo game's storeUrl, from REWARDS_PUBLIC_URL: what touchpoint links open)\n",
			cfg.PublicURL, storepage.Path)
		if cfg.Mode != Production {
			fmt.Fprintf(out, "  Player's store:  %s%s   (the web view as the demo player %q, %d %s to spend: a fresh one-time link at each visit)\n",
				cfg.PublicURL, DemoStorePath, DemoShopperUUID, DemoShopperCoins, demo.CoinName)
		}
		fmt.Fprintf(out, "  Partner API:     the demo game is a WALLET partner with %s %s in its test wallet: POST /partner/v1/token {\"client_id\": test key}\n",
			DemoWallet, cfg.Currency)
		if demo.LivePartnerSecret != "" {
			fmt.Fprintf(out, "                   on live the exchange also needs the live client secret: %s\n", demo.LivePartnerSecret)
		}
		sandbox := "the built-in sandbox voucher provider (SANDBOX- codes)"
		if cfg.TestVoucherBaseURL != "" {
			sandbox = "the voucher sandbox at " + cfg.TestVoucherBaseURL
		}
		fmt.Fprintf(out, "  Money worlds:    the test key (localhost) is the sandbox: its orders are fulfilled by %s, never by the live provider;\n", sandbox)
		fmt.Fprintf(out, "                   the live key (live.localhost) behaves as production: the live provider, a daily purchase budget, a partner secret\n")
		fmt.Fprintf(out, "\n  Try: curl -H 'x-api-key: %s' http://localhost:%d/coins\n", demo.TestKey, port)
	}
	fmt.Fprintf(out, "\nCtrl-C stops the service")
	if cfg.DatabaseURL == "" {
		fmt.Fprintf(out, " and its private PostgreSQL")
	}
	fmt.Fprintf(out, ".\n\n")
}
