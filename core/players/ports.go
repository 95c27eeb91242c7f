package players

import (
	"context"
	"io"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/studio"
)

// Scope is a game and environment: the space players live in.
type Scope struct {
	GameID      uuid.UUID
	Environment studio.Environment
}

// OTPCode is a stored code.
type OTPCode struct {
	ID        uuid.UUID
	Hash      []byte
	Attempts  int
	ExpiresAt time.Time
	Used      bool
}

// SendStats are the codes sent to a phone within a window.
type SendStats struct {
	Sent        int64
	FirstSentAt time.Time
	LastSentAt  time.Time
}

// FailureRun is a phone's run of failed checks in a row: those since its last successful login
// or its last lock, and until when that lock holds (zero when it was never locked).
type FailureRun struct {
	Failures    int
	LockedUntil time.Time
}

// Repo is the storage the players module needs.
type Repo interface {
	// CreateWithUUID creates the player, or returns the existing one with that uuid.
	CreateWithUUID(ctx context.Context, s Scope, uuid string) (Created, error)
	GetOrCreateByPhone(ctx context.Context, s Scope, phone string) (Player, error)
	// Get returns ErrPlayerNotFound unless the player is in scope s.
	Get(ctx context.Context, s Scope, id uuid.UUID) (Player, error)
	GetByUUID(ctx context.Context, s Scope, uuid string) (Player, error)
	GetByPhone(ctx context.Context, s Scope, phone string) (Player, error)
	UpdateProfile(ctx context.Context, p Player) (Player, error)
	// SetPicture sets the player's picture and returns the key it replaced ("" for none).
	SetPicture(ctx context.Context, id uuid.UUID, key string) (p Player, previous string, err error)
	SetCookieConsent(ctx context.Context, id uuid.UUID) (Player, error)
	// Block blocks the player for good and marks its account deleted (the player deleted it):
	// unlike a studio's block, nothing lifts it.
	Block(ctx context.Context, id uuid.UUID) (Player, error)

	// LockPhone serialises OTP work on one phone until the transaction ends.
	LockPhone(ctx context.Context, s Scope, phone string) error
	OTPSendStats(ctx context.Context, s Scope, phone string, since time.Time) (SendStats, error)
	// LockOTPScope serialises OTP sends of the whole game and environment until the transaction
	// ends; it is taken after LockPhone.
	LockOTPScope(ctx context.Context, s Scope) error
	// OTPScopeSendStats are the codes sent to any phone of the game and environment after since
	// (a code sent at since is not counted); both times are since when there is none.
	OTPScopeSendStats(ctx context.Context, s Scope, since time.Time) (SendStats, error)
	// OTPFailureRun returns the phone's run of failed checks (zero when it has none).
	OTPFailureRun(ctx context.Context, s Scope, phone string) (FailureRun, error)
	SaveOTPFailureRun(ctx context.Context, s Scope, phone string, run FailureRun) error
	InsertOTP(ctx context.Context, s Scope, phone string, hash []byte, expiresAt, now time.Time) error
	// LatestOTP returns the newest code sent to the phone, locked, or ErrOTPInvalid.
	LatestOTP(ctx context.Context, s Scope, phone string) (OTPCode, error)
	OTPFailed(ctx context.Context, s Scope, phone string, id uuid.UUID, now time.Time) error
	OTPUsed(ctx context.Context, id uuid.UUID) error
	CountOTPFailures(ctx context.Context, s Scope, phone string, since time.Time) (int64, error)

	// StoreSettings returns the game's settings, or DefaultStoreSettings.
	StoreSettings(ctx context.Context, gameID uuid.UUID) (StoreSettings, error)
	SaveStoreSettings(ctx context.Context, gameID uuid.UUID, s StoreSettings) (StoreSettings, error)
}

// OTPSender delivers a login code to a phone.
type OTPSender interface {
	SendOTP(ctx context.Context, phone, message string) error
}

// FileStorage keeps uploaded files.
type FileStorage interface {
	Put(ctx context.Context, key, contentType string, data []byte) error
	// Open returns the file and its content type, or an error wrapping ErrFileNotFound.
	Open(ctx context.Context, key string) (io.ReadCloser, string, error)
	// Delete removes the file; a file that is not there is no error.
	Delete(ctx context.Context, key string) error
}
