package players

import (
	"errors"
	"fmt"
	"time"
)

var (
	// ErrPlayerNotFound means no such player in the caller's game and environment.
	ErrPlayerNotFound = errors.New("player not found")
	// ErrPlayerDisabled means the player deleted its account.
	ErrPlayerDisabled = errors.New("this player account is disabled")
	// ErrPlayerMismatch means x-game-uuid names another player than the token.
	ErrPlayerMismatch = errors.New("x-game-uuid does not match the player of the token")
	// ErrTokenMissing means no bearer token was sent.
	ErrTokenMissing = errors.New("missing player token: send Authorization: Bearer <access_token>")
	// ErrTokenInvalid means the token is malformed, forged or expired.
	ErrTokenInvalid = errors.New("invalid or expired player token")
	// ErrTokenOtherGame means the token belongs to another game or environment than the API key.
	ErrTokenOtherGame = errors.New("this player token belongs to another game or environment than the API key")
	// ErrOTPInvalid means the code is wrong, or no code was requested.
	ErrOTPInvalid = errors.New("invalid OTP")
	// ErrOTPExpired means the code's 5 minutes have passed.
	ErrOTPExpired = errors.New("OTP has expired; request a new one")
	// ErrOTPUsed means the code already logged the player in once.
	ErrOTPUsed = errors.New("OTP has already been used; request a new one")
	// ErrOTPExhausted means the code saw 5 wrong tries and is dead.
	ErrOTPExhausted = errors.New("too many wrong tries for this OTP; request a new one")
	// ErrInvalid wraps a rule broken by the caller's input.
	ErrInvalid = errors.New("invalid input")
	// ErrSMSFailed means the SMS gateway did not take the message.
	ErrSMSFailed = errors.New("the OTP could not be sent; try again later")
)

// LimitError is a rate limit hit: RetryAfter says when trying again makes sense.
type LimitError struct {
	// Code is OTP_RESEND_TOO_SOON or OTP_RATE_LIMITED.
	Code       string
	RetryAfter time.Duration
	msg        string
}

func (e *LimitError) Error() string { return e.msg }

func resendTooSoon(wait time.Duration) *LimitError {
	return &LimitError{Code: "OTP_RESEND_TOO_SOON", RetryAfter: wait,
		msg: fmt.Sprintf("an OTP was sent less than %s ago; retry in %ds", OTPResendGap, secondsCeil(wait))}
}

func rateLimited(wait time.Duration, what string) *LimitError {
	return &LimitError{Code: "OTP_RATE_LIMITED", RetryAfter: wait,
		msg: fmt.Sprintf("too many %s for this phone in the last hour; retry in %ds", what, secondsCeil(wait))}
}

func secondsCeil(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// ErrFileNotFound means no stored file has the key.
var ErrFileNotFound = errors.New("file not found")
