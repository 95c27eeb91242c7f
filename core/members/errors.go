package members

import "github.com/rewardsco/rewards/core/errs"

var (
	// ErrSignInFailed is every refused sign-in: an unknown email, a wrong password, a missing or
	// wrong TOTP code. They are one error so that an answer tells nothing about which.
	ErrSignInFailed = errs.New(errs.Unauthorized, "SIGN_IN_FAILED", "email, password or TOTP code is wrong")
	// ErrTooManyAttempts means the email had MaxFailures failed sign-ins in FailureWindow; its
	// RetryAfter says when the oldest of them leaves the window.
	ErrTooManyAttempts = errs.New(errs.RateLimited, "TOO_MANY_ATTEMPTS", "too many failed sign-ins for this email; try again later")
	// ErrUnauthenticated means no session or access token, or one that is unknown, expired,
	// ended or revoked.
	ErrUnauthenticated = errs.New(errs.Unauthorized, "UNAUTHENTICATED", "sign in, or send a valid session or access token")
	// ErrRoleForbidden means the caller's role may not do this.
	ErrRoleForbidden = errs.New(errs.Forbidden, "ROLE_FORBIDDEN", "your role may not do this")
	// ErrTOTPSetupRequired means the studio requires TOTP and the member has not set it up.
	ErrTOTPSetupRequired = errs.New(errs.Forbidden, "TOTP_SETUP_REQUIRED", "the studio requires two-factor sign-in: set up TOTP first")
	// ErrLastOwner means the change would leave the studio without an active owner.
	ErrLastOwner = errs.New(errs.Conflict, "LAST_OWNER", "a studio keeps at least one owner: make another member owner first")
	// ErrMemberExists means the studio already has a member with the email.
	ErrMemberExists = errs.New(errs.Conflict, "MEMBER_EXISTS", "the studio already has a member with this email")
	// ErrMemberNotFound means no member of the caller's studio has the id.
	ErrMemberNotFound = errs.New(errs.NotFound, "MEMBER_NOT_FOUND", "member not found")
	// ErrTokenNotFound means no access token of the caller's studio has the id.
	ErrTokenNotFound = errs.New(errs.NotFound, "TOKEN_NOT_FOUND", "access token not found")
	// ErrLinkInvalid means an invitation or reset link is unknown, already used or expired.
	ErrLinkInvalid = errs.New(errs.NotFound, "LINK_INVALID", "this link is not valid: it was used already or has expired")
	// ErrTOTPInvalid means the TOTP code given to confirm or disable TOTP is wrong.
	ErrTOTPInvalid = errs.New(errs.Invalid, "TOTP_INVALID", "the TOTP code is wrong")
)
