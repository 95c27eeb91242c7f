package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/payments"
	"github.com/rewardsco/rewards/core/store"
	"github.com/rewardsco/rewards/core/studio"
)

// PartnerRepo is the storage of the partner module.
type PartnerRepo struct{ conn }

var _ partner.Repo = (*PartnerRepo)(nil)

// NewPartnerStore returns the storage of the partner module on d.
func NewPartnerStore(d *DB) store.Of[partner.Repo] {
	return newModuleStore(d, func(c conn) partner.Repo { return &PartnerRepo{c} })
}

func toCorePartnerSettings(r db.PartnerSetting) partner.Settings {
	return partner.Settings{GameID: r.GameID, Enabled: r.Enabled, Settlement: orders.Settlement(r.Settlement),
		DiscountPct: money.Pct(r.DiscountBps), UpdatedAt: r.UpdatedAt}
}

// PutSettings implements partner.Repo.
func (r *PartnerRepo) PutSettings(ctx context.Context, s partner.Settings) (partner.Settings, error) {
	row, err := r.q.PartnerPutSettings(ctx, db.PartnerPutSettingsParams{GameID: s.GameID, Enabled: s.Enabled,
		Settlement: string(s.Settlement), DiscountBps: int32(s.DiscountPct)})
	if err != nil {
		return partner.Settings{}, fmt.Errorf("put partner settings: %w", err)
	}
	return toCorePartnerSettings(row), nil
}

// GetSettings implements partner.Repo.
func (r *PartnerRepo) GetSettings(ctx context.Context, gameID uuid.UUID) (partner.Settings, bool, error) {
	row, err := r.q.PartnerGetSettings(ctx, gameID)
	if isNoRows(err) {
		return partner.Settings{}, false, nil
	}
	if err != nil {
		return partner.Settings{}, false, fmt.Errorf("get partner settings: %w", err)
	}
	return toCorePartnerSettings(row), true, nil
}

// PutSecret implements partner.Repo.
func (r *PartnerRepo) PutSecret(ctx context.Context, gameID uuid.UUID, env studio.Environment, hash []byte) error {
	return wrapErr(r.q.PartnerPutSecret(ctx, db.PartnerPutSecretParams{GameID: gameID, Environment: string(env), SecretHash: hash}), "put client secret")
}

// SecretHash implements partner.Repo.
func (r *PartnerRepo) SecretHash(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]byte, bool, error) {
	h, err := r.q.PartnerGetSecret(ctx, db.PartnerGetSecretParams{GameID: gameID, Environment: string(env)})
	if isNoRows(err) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("get client secret: %w", err)
	}
	return h, true, nil
}

// DeleteTokens implements partner.Repo.
func (r *PartnerRepo) DeleteTokens(ctx context.Context, gameID uuid.UUID, env studio.Environment) error {
	return wrapErr(r.q.PartnerDeleteTokens(ctx, db.PartnerDeleteTokensParams{GameID: gameID, Environment: string(env)}), "revoke partner tokens")
}

// LockTokens implements partner.Repo.
func (r *PartnerRepo) LockTokens(ctx context.Context, gameID uuid.UUID, env studio.Environment) error {
	return wrapErr(r.q.PartnerLockTokens(ctx, db.PartnerLockTokensParams{GameID: gameID.String(), Environment: string(env)}), "lock partner tokens")
}

// TrimTokens implements partner.Repo.
func (r *PartnerRepo) TrimTokens(ctx context.Context, gameID uuid.UUID, env studio.Environment, keep int) error {
	return wrapErr(r.q.PartnerTrimTokens(ctx, db.PartnerTrimTokensParams{GameID: gameID, Environment: string(env), Keep: int32(keep)}), "trim partner tokens")
}

// InsertToken implements partner.Repo.
func (r *PartnerRepo) InsertToken(ctx context.Context, g partner.TokenGrant) error {
	if err := r.q.PartnerInsertToken(ctx, db.PartnerInsertTokenParams{TokenHash: g.Hash, GameID: g.GameID, Environment: string(g.Environment),
		ExpiresAt: g.ExpiresAt, KeyHash: g.KeyHash, SecretHash: g.SecretHash}); err != nil {
		return fmt.Errorf("insert partner token: %w", err)
	}
	return nil
}

// FindToken implements partner.Repo.
func (r *PartnerRepo) FindToken(ctx context.Context, hash []byte) (partner.TokenRecord, error) {
	row, err := r.q.PartnerFindToken(ctx, hash)
	if isNoRows(err) {
		return partner.TokenRecord{}, partner.ErrTokenInvalid
	}
	if err != nil {
		return partner.TokenRecord{}, fmt.Errorf("find partner token: %w", err)
	}
	rec := partner.TokenRecord{GameID: row.GameID, StudioID: row.StudioID, GameName: row.GameName,
		Environment: studio.Environment(row.Environment), ExpiresAt: row.ExpiresAt}
	if row.PartnerEnabled != nil {
		rec.Settings = &partner.Settings{GameID: row.GameID, Enabled: *row.PartnerEnabled, Settlement: orders.Settlement(deref(row.Settlement)),
			DiscountPct: money.Pct(deref(row.DiscountBps))}
	}
	return rec, nil
}

// PurgeTokens implements partner.Repo.
func (r *PartnerRepo) PurgeTokens(ctx context.Context, batch int) (int64, error) {
	n, err := r.q.PartnerPurgeTokens(ctx, int32(batch))
	if err != nil {
		return 0, fmt.Errorf("purge partner tokens: %w", err)
	}
	return n, nil
}

// LockWallet implements partner.Repo.
func (r *PartnerRepo) LockWallet(ctx context.Context, gameID uuid.UUID, env studio.Environment) (money.Amount, error) {
	b, err := r.q.PartnerLockWallet(ctx, db.PartnerLockWalletParams{GameID: gameID, Environment: string(env)})
	if err != nil {
		return 0, fmt.Errorf("lock wallet: %w", err)
	}
	return money.Amount(b), nil
}

// Wallet implements partner.Repo.
func (r *PartnerRepo) Wallet(ctx context.Context, gameID uuid.UUID, env studio.Environment) (money.Amount, error) {
	b, err := r.q.PartnerGetWallet(ctx, db.PartnerGetWalletParams{GameID: gameID, Environment: string(env)})
	if isNoRows(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("read wallet: %w", err)
	}
	return money.Amount(b), nil
}

// Apply implements partner.Repo.
func (r *PartnerRepo) Apply(ctx context.Context, e partner.Entry) (partner.Entry, error) {
	id, err := r.q.PartnerAddEntry(ctx, db.PartnerAddEntryParams{GameID: e.GameID, Environment: string(e.Environment), Kind: string(e.Kind),
		Amount: int64(e.Amount), BalanceAfter: int64(e.BalanceAfter), OrderID: e.OrderID, Reference: orNil(e.Reference)})
	if err != nil {
		return partner.Entry{}, fmt.Errorf("record a wallet %s: %w", e.Kind, err)
	}
	// In a transaction the balance goes with its next statement or its COMMIT.
	if err := r.deferredQueries(nil).PartnerSetWallet(ctx, db.PartnerSetWalletParams{GameID: e.GameID, Environment: string(e.Environment), Balance: int64(e.BalanceAfter)}); err != nil {
		return partner.Entry{}, fmt.Errorf("set wallet balance: %w", err)
	}
	e.ID = id
	return e, nil
}

// debitWallet debits a wallet by amount for an order and records the entry (a DEBIT of
// -amount), in one statement that raises RWWAL when the wallet does not cover the amount (then
// partner.ErrInsufficientBalance), sent with the transaction's COMMIT after every other
// statement, so that the wallet row, which every order of the partner contends on, is locked
// only while the commit runs (and in a turn of several orders, only by the last round trip).
func (r *PartnerRepo) debitWallet(ctx context.Context, gameID uuid.UUID, env studio.Environment, orderID uuid.UUID, amount money.Amount) error {
	return r.atCommitQueries(func(err error) error {
		if pgCode(err) == "RWWAL" {
			return partner.ErrInsufficientBalance
		}
		return fmt.Errorf("debit the wallet: %w", err)
	}).PartnerDebitInTx(ctx, db.PartnerDebitInTxParams{GameID: gameID, Environment: string(env), OrderID: orderID, Amount: int64(amount)})
}

// CreditExists implements partner.Repo.
func (r *PartnerRepo) CreditExists(ctx context.Context, gameID uuid.UUID, env studio.Environment, reference string) (bool, error) {
	ok, err := r.q.PartnerCreditExists(ctx, db.PartnerCreditExistsParams{GameID: gameID, Environment: string(env), Reference: &reference})
	if err != nil {
		return false, fmt.Errorf("look up credit %q: %w", reference, err)
	}
	return ok, nil
}

// OrderEntryExists implements partner.Repo.
func (r *PartnerRepo) OrderEntryExists(ctx context.Context, orderID uuid.UUID, kind partner.EntryKind) (bool, error) {
	ok, err := r.q.PartnerOrderEntryExists(ctx, db.PartnerOrderEntryExistsParams{OrderID: &orderID, Kind: string(kind)})
	if err != nil {
		return false, fmt.Errorf("look up the %s of order %s: %w", kind, orderID, err)
	}
	return ok, nil
}

// Entries implements partner.Repo.
func (r *PartnerRepo) Entries(ctx context.Context, gameID uuid.UUID, env studio.Environment) ([]partner.Entry, error) {
	rows, err := r.q.PartnerEntries(ctx, db.PartnerEntriesParams{GameID: gameID, Environment: string(env)})
	if err != nil {
		return nil, fmt.Errorf("wallet entries: %w", err)
	}
	return toCoreEntries(rows), nil
}

// EntriesPage implements partner.Repo.
func (r *PartnerRepo) EntriesPage(ctx context.Context, gameID uuid.UUID, env studio.Environment, limit, offset int) ([]partner.Entry, int64, error) {
	rows, err := r.q.PartnerEntriesPage(ctx, db.PartnerEntriesPageParams{GameID: gameID, Environment: string(env), Lim: int32(limit), Off: int32(offset)})
	if err != nil {
		return nil, 0, fmt.Errorf("wallet entries: %w", err)
	}
	total, err := r.q.PartnerCountEntries(ctx, db.PartnerCountEntriesParams{GameID: gameID, Environment: string(env)})
	if err != nil {
		return nil, 0, fmt.Errorf("count wallet entries: %w", err)
	}
	return toCoreEntries(rows), total, nil
}

func toCoreEntries(rows []db.PartnerWalletEntry) []partner.Entry {
	out := make([]partner.Entry, len(rows))
	for i, e := range rows {
		out[i] = partner.Entry{ID: e.ID, GameID: e.GameID, Environment: studio.Environment(e.Environment), Kind: partner.EntryKind(e.Kind),
			Amount: money.Amount(e.Amount), BalanceAfter: money.Amount(e.BalanceAfter), OrderID: e.OrderID, Reference: deref(e.Reference),
			CreatedAt: e.CreatedAt}
	}
	return out
}

// Brands implements partner.Repo.
func (r *PartnerRepo) Brands(ctx context.Context, q partner.BrandQuery) ([]partner.Brand, int64, error) {
	rows, err := r.q.PartnerBrands(ctx, db.PartnerBrandsParams{Search: orNil(q.Search), Lim: int32(q.Limit), Off: int32(q.Offset)})
	if err != nil {
		return nil, 0, fmt.Errorf("partner brands: %w", err)
	}
	out := make([]partner.Brand, len(rows))
	var total int64
	for i, b := range rows {
		out[i], total = toPartnerBrand(b.PartnerGiftCard), b.Total
	}
	return out, total, nil
}

// Brand implements partner.Repo, on a statement of its own (PartnerBrand), which keeps its plan.
func (r *PartnerRepo) Brand(ctx context.Context, code string) (partner.Brand, bool, error) {
	row, err := r.q.PartnerBrand(ctx, code)
	if isNoRows(err) {
		return partner.Brand{}, false, nil
	}
	if err != nil {
		return partner.Brand{}, false, fmt.Errorf("partner brand %s: %w", code, err)
	}
	return toPartnerBrand(row), true, nil
}

func toPartnerBrand(b db.PartnerGiftCard) partner.Brand {
	out := partner.Brand{Code: b.BrandCode, Name: b.BrandName, LogoURL: b.LogoUrl, Categories: b.Categories,
		Description: b.Description, Terms: b.TermsAndConditions, HowToRedeem: b.HowToRedeem, RewardID: b.RewardID,
		ValueType: partner.Fixed, MinValue: money.Amount(b.MinFace), MaxValue: money.Amount(b.MaxFace), ProviderProduct: b.ProviderProduct}
	if out.Description == "" {
		out.Description = b.BrandDescription
	}
	if b.ValueType == "RANGE" {
		out.ValueType = partner.Dynamic
	} else {
		out.Denominations = make([]money.Amount, len(b.Denominations))
		for j, d := range b.Denominations {
			out.Denominations[j] = money.Amount(d)
		}
	}
	return out
}

// ClaimPaymentCheck implements partner.Repo.
func (r *PartnerRepo) ClaimPaymentCheck(ctx context.Context, orderID uuid.UUID, every time.Duration) (bool, error) {
	n, err := r.q.PartnerClaimPaymentCheck(ctx, db.PartnerClaimPaymentCheckParams{ID: orderID, EverySeconds: every.Seconds()})
	if err != nil {
		return false, fmt.Errorf("claim a payment check: %w", err)
	}
	return n == 1, nil
}

// UseQuote implements partner.Repo.
func (r *PartnerRepo) UseQuote(ctx context.Context, quoteID string, orderID uuid.UUID) (bool, error) {
	n, err := r.q.PartnerUseQuote(ctx, db.PartnerUseQuoteParams{QuoteID: quoteID, OrderID: orderID})
	if err != nil {
		return false, fmt.Errorf("use quote: %w", err)
	}
	return n == 1, nil
}

// RecordEvent implements partner.Repo.
func (r *PartnerRepo) RecordEvent(ctx context.Context, provider string, env studio.Environment, e payments.Event, orderID *uuid.UUID) (bool, error) {
	n, err := r.q.PartnerRecordEvent(ctx, db.PartnerRecordEventParams{Provider: provider, EventID: e.ID, Type: string(e.Type),
		SessionID: e.SessionID, OrderID: orderID, Environment: string(env)})
	if err != nil {
		return false, fmt.Errorf("record payment event %s: %w", e.ID, err)
	}
	return n == 1, nil
}
