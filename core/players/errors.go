package players

import (
	"time"

	"github.com/rewardsco/rewards/core/errs"
)

var (
	// ErrPlayerNotFound means no such player in the caller's game and environment.
	ErrPlayerNotFound = errs.New(errs.NotFound, "PLAYER_NOT_FOUND", "player not found")
	// ErrPlayerDisabled means the player deleted its account.
	ErrPlayerDisabled = errs.New(errs.Forbidden, "PLAYER_DISABLED", "this player account is disabled")
	// ErrPlayerMismatch means x-game-uuid names another player than the token.
	ErrPlayerMismatch = errs.New(errs.Forbidden, "PLAYER_MISMATCH", "x-game-uuid does not match the player of the token")
	// ErrTokenMissing means no bearer token was sent.
	ErrTokenMissing = errs.New(errs.Unauthorized, "TOKEN_MISSING", "missing player token: send Authorization: Bearer <access_token>")
	// ErrTokenInvalid means the token is malformed, forged or expired.
	ErrTokenInvalid = errs.New(errs.Unauthorized, "TOKEN_INVALID", "invalid or expired player token")
	// ErrTokenOtherGame means the token belongs to another game or environment than the API key.
	ErrTokenOtherGame = errs.New(errs.Unauthorized, "TOKEN_WRONG_GAME", "this player token belongs to another game or environment than the API key")
	// ErrOTPInvalid means the code is wrong, or no code was requested.
	ErrOTPInvalid = errs.New(errs.Unauthorized, "OTP_INVALID", "invalid OTP")
	// ErrOTPExpired means the code's 5 minutes have passed.
	ErrOTPExpired = errs.New(errs.Unauthorized, "OTP_EXPIRED", "OTP has expired; request a new one")
	// ErrOTPUsed means the code already logged the player in once.
	ErrOTPUsed = errs.New(errs.Unauthorized, "OTP_USED", "OTP has already been used; request a new one")
	// ErrOTPExhausted means the code saw 5 wrong tries and is dead.
	ErrOTPExhausted = errs.New(errs.Unauthorized, "OTP_ATTEMPTS_EXCEEDED", "too many wrong tries for this OTP; request a new one")
	// ErrSMSFailed means the SMS gateway did not take the message.
	ErrSMSFailed = errs.New(errs.Upstream, "SMS_SEND_FAILED", "the OTP could not be sent; try again later")
	// ErrOTPResendTooSoon means a code was sent less than OTPResendGap ago.
	ErrOTPResendTooSoon = errs.New(errs.RateLimited, "OTP_RESEND_TOO_SOON", "an OTP was sent too recently")
	// ErrOTPRateLimited means the phone reached an hourly limit of sends or failed checks.
	ErrOTPRateLimited = errs.New(errs.RateLimited, "OTP_RATE_LIMITED", "too many OTP requests for this phone")
	// ErrOTPGameRateLimited means the game and environment sent REWARDS_OTP_SENDS_PER_HOUR codes
	// in the last hour, across all phones: a cap against SMS pumping, not the player's doing.
	ErrOTPGameRateLimited = errs.New(errs.RateLimited, "OTP_GAME_RATE_LIMITED", "this game sent too many OTPs in the last hour")
	// ErrFileNotFound means no stored file has the key.
	ErrFileNotFound = errs.New(errs.NotFound, "FILE_NOT_FOUND", "file not found")
)

func resendTooSoon(wait time.Duration) error {
	return ErrOTPResendTooSoon.Withf("an OTP was sent less than %s ago; retry in %ds", OTPResendGap, secondsCeil(wait)).WithRetryAfter(wait)
}

func rateLimited(wait time.Duration, what string) error {
	return ErrOTPRateLimited.Withf("too many %s for this phone in the last hour; retry in %ds", what, secondsCeil(wait)).WithRetryAfter(wait)
}

func phoneLocked(wait time.Duration) error {
	return ErrOTPRateLimited.Withf("%d failed OTP checks in a row locked this phone for %s; retry in %ds",
		OTPMaxFailureRun, OTPLockout, secondsCeil(wait)).WithRetryAfter(wait)
}

func gameRateLimited(limit int, wait time.Duration) error {
	if wait <= 0 {
		wait = time.Second
	}
	return ErrOTPGameRateLimited.Withf("this game sent its %d OTPs of the last hour; retry in %ds", limit, secondsCeil(wait)).WithRetryAfter(wait)
}

func secondsCeil(d time.Duration) int64 {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return s
}

func invalid(format string, args ...any) error { return errs.Invalidf(format, args...) }
