package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/postgres/db"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// PlayersRepo is the storage of the players module.
type PlayersRepo struct{ conn }

func toCorePlayer(r db.Player) (players.Player, error) {
	p := players.Player{
		ID: r.ID, GameID: r.GameID, Environment: studio.Environment(r.Environment), UUID: r.Uuid, Phone: r.Phone,
		Name: r.Name, Email: r.Email, ContactPhone: r.ContactPhone, PictureKey: r.PictureKey, IsBlocked: r.IsBlocked,
		CookieConsentAt: r.CookieConsentAt, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
	}
	if err := json.Unmarshal(r.Addresses, &p.Addresses); err != nil {
		return players.Player{}, fmt.Errorf("decode addresses of %s: %w", r.ID, err)
	}
	return p, nil
}

func playerResult(r db.Player, err error, what string) (players.Player, error) {
	if isNoRows(err) {
		return players.Player{}, players.ErrPlayerNotFound
	}
	if err != nil {
		return players.Player{}, fmt.Errorf("%s: %w", what, err)
	}
	return toCorePlayer(r)
}

// CreateWithUUID implements players.Repo.
func (r *PlayersRepo) CreateWithUUID(ctx context.Context, s players.Scope, u string) (players.Created, error) {
	arg := db.PlayersCreateWithUUIDParams{GameID: s.GameID, Environment: string(s.Environment), Uuid: &u}
	row, err := r.q.PlayersCreateWithUUID(ctx, arg)
	if isNoRows(err) {
		// A concurrent request created the player after this statement's snapshot: it is
		// visible to the next statement.
		row, err = r.q.PlayersCreateWithUUID(ctx, arg)
	}
	if err != nil {
		return players.Created{}, fmt.Errorf("create player: %w", err)
	}
	created := row.Created
	p, err := toCorePlayer(db.Player{
		ID: row.ID, GameID: row.GameID, Environment: row.Environment, Uuid: row.Uuid, Phone: row.Phone, Name: row.Name,
		Email: row.Email, ContactPhone: row.ContactPhone, Addresses: row.Addresses, PictureKey: row.PictureKey,
		IsBlocked: row.IsBlocked, CookieConsentAt: row.CookieConsentAt, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
	})
	return players.Created{Player: p, Created: created}, err
}

// GetOrCreateByPhone implements players.Repo.
func (r *PlayersRepo) GetOrCreateByPhone(ctx context.Context, s players.Scope, phone string) (players.Player, error) {
	arg := db.PlayersGetOrCreateByPhoneParams{GameID: s.GameID, Environment: string(s.Environment), Phone: &phone}
	row, err := r.q.PlayersGetOrCreateByPhone(ctx, arg)
	if isNoRows(err) {
		row, err = r.q.PlayersGetOrCreateByPhone(ctx, arg)
	}
	return playerResult(db.Player(row), err, "get or create player by phone")
}

// Get implements players.Repo.
func (r *PlayersRepo) Get(ctx context.Context, s players.Scope, id uuid.UUID) (players.Player, error) {
	row, err := r.q.PlayersGet(ctx, db.PlayersGetParams{ID: id, GameID: s.GameID, Environment: string(s.Environment)})
	return playerResult(row, err, "get player")
}

// GetByUUID implements players.Repo.
func (r *PlayersRepo) GetByUUID(ctx context.Context, s players.Scope, u string) (players.Player, error) {
	row, err := r.q.PlayersGetByUUID(ctx, db.PlayersGetByUUIDParams{GameID: s.GameID, Environment: string(s.Environment), Uuid: &u})
	return playerResult(row, err, "get player by uuid")
}

// GetByPhone implements players.Repo.
func (r *PlayersRepo) GetByPhone(ctx context.Context, s players.Scope, phone string) (players.Player, error) {
	row, err := r.q.PlayersGetByPhone(ctx, db.PlayersGetByPhoneParams{GameID: s.GameID, Environment: string(s.Environment), Phone: &phone})
	return playerResult(row, err, "get player by phone")
}

// UpdateProfile implements players.Repo.
func (r *PlayersRepo) UpdateProfile(ctx context.Context, p players.Player) (players.Player, error) {
	addresses := p.Addresses
	if addresses == nil {
		addresses = []players.Address{}
	}
	raw, err := json.Marshal(addresses)
	if err != nil {
		return players.Player{}, err
	}
	row, err := r.q.PlayersUpdateProfile(ctx, db.PlayersUpdateProfileParams{
		ID: p.ID, Name: p.Name, Email: p.Email, ContactPhone: p.ContactPhone, Addresses: raw,
	})
	return playerResult(row, err, "update player")
}

// SetPicture implements players.Repo.
func (r *PlayersRepo) SetPicture(ctx context.Context, id uuid.UUID, key string) (players.Player, string, error) {
	row, err := r.q.PlayersSetPicture(ctx, db.PlayersSetPictureParams{ID: id, PictureKey: key})
	p, err := playerResult(db.Player{
		ID: row.ID, GameID: row.GameID, Environment: row.Environment, Uuid: row.Uuid, Phone: row.Phone, Name: row.Name,
		Email: row.Email, ContactPhone: row.ContactPhone, Addresses: row.Addresses, PictureKey: row.PictureKey,
		IsBlocked: row.IsBlocked, CookieConsentAt: row.CookieConsentAt, CreatedAt: row.CreatedAt, UpdatedAt: row.UpdatedAt,
	}, err, "set picture")
	if err != nil {
		return players.Player{}, "", err
	}
	return p, row.PreviousPictureKey, nil
}

// SetCookieConsent implements players.Repo.
func (r *PlayersRepo) SetCookieConsent(ctx context.Context, id uuid.UUID) (players.Player, error) {
	row, err := r.q.PlayersSetCookieConsent(ctx, id)
	return playerResult(row, err, "set cookie consent")
}

// Block implements players.Repo.
func (r *PlayersRepo) Block(ctx context.Context, id uuid.UUID) (players.Player, error) {
	row, err := r.q.PlayersBlock(ctx, id)
	return playerResult(row, err, "block player")
}

// LockPhone implements players.Repo.
func (r *PlayersRepo) LockPhone(ctx context.Context, s players.Scope, phone string) error {
	return wrapErr(r.q.PlayersLockPhone(ctx, db.PlayersLockPhoneParams{GameID: s.GameID.String(), Environment: string(s.Environment), Phone: phone}), "lock phone")
}

// OTPSendStats implements players.Repo.
func (r *PlayersRepo) OTPSendStats(ctx context.Context, s players.Scope, phone string, since time.Time) (players.SendStats, error) {
	row, err := r.q.PlayersOTPSendStats(ctx, db.PlayersOTPSendStatsParams{GameID: s.GameID, Environment: string(s.Environment), Phone: phone, Since: since})
	if err != nil {
		return players.SendStats{}, fmt.Errorf("otp send stats: %w", err)
	}
	return players.SendStats{Sent: row.Sent, FirstSentAt: row.FirstSentAt, LastSentAt: row.LastSentAt}, nil
}

// LockOTPScope implements players.Repo.
func (r *PlayersRepo) LockOTPScope(ctx context.Context, s players.Scope) error {
	return wrapErr(r.q.PlayersLockOTPScope(ctx, db.PlayersLockOTPScopeParams{GameID: s.GameID.String(), Environment: string(s.Environment)}), "lock otp sends of the game")
}

// OTPScopeSendStats implements players.Repo.
func (r *PlayersRepo) OTPScopeSendStats(ctx context.Context, s players.Scope, since time.Time) (players.SendStats, error) {
	row, err := r.q.PlayersOTPScopeSendStats(ctx, db.PlayersOTPScopeSendStatsParams{GameID: s.GameID, Environment: string(s.Environment), Since: since})
	if err != nil {
		return players.SendStats{}, fmt.Errorf("otp sends of the game: %w", err)
	}
	return players.SendStats{Sent: row.Sent, FirstSentAt: row.FirstSentAt, LastSentAt: row.LastSentAt}, nil
}

// OTPFailureRun implements players.Repo.
func (r *PlayersRepo) OTPFailureRun(ctx context.Context, s players.Scope, phone string) (players.FailureRun, error) {
	row, err := r.q.PlayersGetOTPFailureRun(ctx, db.PlayersGetOTPFailureRunParams{GameID: s.GameID, Environment: string(s.Environment), Phone: phone})
	if isNoRows(err) {
		return players.FailureRun{}, nil
	}
	if err != nil {
		return players.FailureRun{}, fmt.Errorf("otp failure run: %w", err)
	}
	run := players.FailureRun{Failures: int(row.Failures)}
	if row.LockedUntil != nil {
		run.LockedUntil = *row.LockedUntil
	}
	return run, nil
}

// SaveOTPFailureRun implements players.Repo.
func (r *PlayersRepo) SaveOTPFailureRun(ctx context.Context, s players.Scope, phone string, run players.FailureRun) error {
	arg := db.PlayersSaveOTPFailureRunParams{GameID: s.GameID, Environment: string(s.Environment), Phone: phone, Failures: int32(run.Failures)}
	if !run.LockedUntil.IsZero() {
		arg.LockedUntil = &run.LockedUntil
	}
	return wrapErr(r.q.PlayersSaveOTPFailureRun(ctx, arg), "save otp failure run")
}

// InsertOTP implements players.Repo.
func (r *PlayersRepo) InsertOTP(ctx context.Context, s players.Scope, phone string, hash []byte, expiresAt, now time.Time) error {
	err := r.q.PlayersInsertOTP(ctx, db.PlayersInsertOTPParams{
		GameID: s.GameID, Environment: string(s.Environment), Phone: phone, CodeHash: hash, ExpiresAt: expiresAt, CreatedAt: now,
	})
	if err != nil {
		return fmt.Errorf("insert otp: %w", err)
	}
	return nil
}

// LatestOTP implements players.Repo.
func (r *PlayersRepo) LatestOTP(ctx context.Context, s players.Scope, phone string) (players.OTPCode, error) {
	row, err := r.q.PlayersLatestOTPForUpdate(ctx, db.PlayersLatestOTPForUpdateParams{GameID: s.GameID, Environment: string(s.Environment), Phone: phone})
	if isNoRows(err) {
		return players.OTPCode{}, players.ErrOTPInvalid
	}
	if err != nil {
		return players.OTPCode{}, fmt.Errorf("latest otp: %w", err)
	}
	return players.OTPCode{ID: row.ID, Hash: row.CodeHash, Attempts: int(row.Attempts), ExpiresAt: row.ExpiresAt, Used: row.UsedAt != nil}, nil
}

// OTPFailed implements players.Repo.
func (r *PlayersRepo) OTPFailed(ctx context.Context, s players.Scope, phone string, id uuid.UUID, now time.Time) error {
	if err := r.q.PlayersOTPFailed(ctx, id); err != nil {
		return fmt.Errorf("count otp attempt: %w", err)
	}
	return wrapErr(r.q.PlayersInsertOTPFailure(ctx, db.PlayersInsertOTPFailureParams{GameID: s.GameID, Environment: string(s.Environment), Phone: phone, FailedAt: now}), "record otp failure")
}

// OTPUsed implements players.Repo.
func (r *PlayersRepo) OTPUsed(ctx context.Context, id uuid.UUID) error {
	return wrapErr(r.q.PlayersOTPUsed(ctx, id), "use otp")
}

// CountOTPFailures implements players.Repo.
func (r *PlayersRepo) CountOTPFailures(ctx context.Context, s players.Scope, phone string, since time.Time) (int64, error) {
	n, err := r.q.PlayersCountOTPFailures(ctx, db.PlayersCountOTPFailuresParams{GameID: s.GameID, Environment: string(s.Environment), Phone: phone, Since: since})
	if err != nil {
		return 0, fmt.Errorf("count otp failures: %w", err)
	}
	return n, nil
}

// StoreSettings implements players.Repo.
func (r *PlayersRepo) StoreSettings(ctx context.Context, gameID uuid.UUID) (players.StoreSettings, error) {
	row, err := r.q.PlayersGetStoreSettings(ctx, gameID)
	if isNoRows(err) {
		return players.DefaultStoreSettings, nil
	}
	if err != nil {
		return players.StoreSettings{}, fmt.Errorf("store settings: %w", err)
	}
	return toCoreSettings(row), nil
}

// SaveStoreSettings implements players.Repo.
func (r *PlayersRepo) SaveStoreSettings(ctx context.Context, gameID uuid.UUID, s players.StoreSettings) (players.StoreSettings, error) {
	row, err := r.q.PlayersUpsertStoreSettings(ctx, db.PlayersUpsertStoreSettingsParams{
		GameID: gameID, RewardsEnabled: s.RewardsEnabled, GcommerceEnabled: s.GcommerceEnabled,
		DefaultLandingPage: s.DefaultLandingPage, Theme: s.Theme,
	})
	if err != nil {
		return players.StoreSettings{}, fmt.Errorf("save store settings: %w", err)
	}
	return toCoreSettings(row), nil
}

func toCoreSettings(r db.StoreSetting) players.StoreSettings {
	return players.StoreSettings{RewardsEnabled: r.RewardsEnabled, GcommerceEnabled: r.GcommerceEnabled, DefaultLandingPage: r.DefaultLandingPage, Theme: r.Theme}
}
