package partner

import "github.com/rewardsco/rewards/core/errs"

// The partner module's errors.
var (
	// ErrTokenMissing means a partner call carried no bearer token.
	ErrTokenMissing = errs.New(errs.Unauthorized, "PARTNER_TOKEN_MISSING", "missing partner bearer token: send Authorization: Bearer <access_token> from POST /partner/v1/token")
	// ErrTokenInvalid means the token is unknown, expired, revoked by a secret rotation or of the other environment.
	ErrTokenInvalid = errs.New(errs.Unauthorized, "PARTNER_TOKEN_INVALID", "invalid or expired partner token")
	// ErrBadClient means the token exchange failed: unknown client_id, a client_secret missing
	// where one is set, or a wrong one.
	ErrBadClient = errs.New(errs.Unauthorized, "INVALID_CLIENT", "client_secret is required for this client, or the client_id or client_secret is invalid")
	// ErrDisabled means the game is not enabled for the partner API.
	ErrDisabled = errs.New(errs.Forbidden, "PARTNER_DISABLED", "this game is not enabled for the gift-card partner API; ask the operator to enable it")
	// ErrBrandNotFound means no active gift card has the brand code.
	ErrBrandNotFound = errs.New(errs.Invalid, "BRAND_NOT_FOUND", "brand not found or inactive")
	// ErrDenominationNotAvailable means the brand does not sell that value.
	ErrDenominationNotAvailable = errs.New(errs.Invalid, "DENOMINATION_NOT_AVAILABLE", "denomination not available for this brand")
	// ErrOutOfStock means the provider cannot issue that many cards of the value now.
	ErrOutOfStock = errs.New(errs.Invalid, "OUT_OF_STOCK", "this denomination is out of stock")
	// ErrInsufficientBalance means the wallet cannot pay the order.
	ErrInsufficientBalance = errs.New(errs.Invalid, "INSUFFICIENT_WALLET_BALANCE", "studio wallet balance too low")
	// ErrPaymentInit means the payment session of a CASH order could not be created.
	ErrPaymentInit = errs.New(errs.Invalid, "PAYMENT_INIT_FAILED", "the payment could not be started")
	// ErrQuoteExpired means the order's quoteId is past its 10 minutes.
	ErrQuoteExpired = errs.New(errs.Invalid, "QUOTE_EXPIRED", "the quote has expired; ask for a new preview")
	// ErrQuoteUsed means another order used the quote already: a quote holds a price once.
	ErrQuoteUsed = errs.New(errs.Invalid, "QUOTE_USED", "this quote was used by another order; ask for a new preview")
	// ErrQuoteMismatch means the quoteId is not one of this partner's previews of this brand,
	// denomination and quantity.
	ErrQuoteMismatch = errs.New(errs.Invalid, "QUOTE_MISMATCH", "the quote does not match this order (another brand, denomination, quantity or partner)")
	// ErrOrderNotFound means the studio has no such order.
	ErrOrderNotFound = errs.New(errs.NotFound, "ORDER_NOT_FOUND", "order not found for this studio")
	// ErrBrandUnknown is ErrBrandNotFound for a read of one brand (404).
	ErrBrandUnknown = errs.New(errs.NotFound, "BRAND_NOT_FOUND", "brand not found or inactive")
	// ErrNoPaymentProvider means a provider webhook arrived for a provider this deployment does not use.
	ErrNoPaymentProvider = errs.New(errs.NotFound, "PAYMENT_PROVIDER_NOT_CONFIGURED", "this deployment does not use that payment provider")
)
