package partnerapi

import (
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
)

// Money in every body is a JSON number of units of the deployment currency with at most two
// decimals (500, 10.99). Schema names are global to the OpenAPI document, so every body here
// starts with Partner.

// PartnerTokenRequest is the token exchange's body, as JSON or as a form.
type PartnerTokenRequest struct {
	ClientID     string `json:"client_id" form:"client_id" minLength:"1" maxLength:"128" doc:"The game's API key of this environment" example:"rk_test_3kTMd0m5ZJwq8pXq0bq3sGxT2a9YpL1c"`
	ClientSecret string `json:"client_secret,omitempty" form:"client_secret" maxLength:"128" doc:"The client secret; required when one is set for the game and environment" example:"rcs_9a8b7c6d5e4f3g2h1i0jKLMNOPQRSTUVWXYZabcd"`
}

// PartnerTokenBody is a bearer token.
type PartnerTokenBody struct {
	AccessToken string `json:"access_token" doc:"Send as Authorization: Bearer <access_token> on every other partner call" example:"rpt_Qm9xZ3V6b0F0N2d4cE1uS2pIYlZ5dFJ3ZUxhQ2lEc0Y"`
	TokenType   string `json:"token_type" doc:"Always Bearer" example:"Bearer"`
	ExpiresIn   int    `json:"expires_in" doc:"Seconds the token works: 86400" example:"86400"`
}

// PartnerConfigBody is the partner's configuration.
type PartnerConfigBody struct {
	Settlement string `json:"settlement" enum:"WALLET,CASH" doc:"WALLET: orders are paid from the prepaid wallet; CASH: the user pays through a payment session" example:"WALLET"`
	Currency   string `json:"currency" enum:"INR,USD" doc:"The deployment's currency" example:"INR"`
}

// PartnerWalletBody is the wallet.
type PartnerWalletBody struct {
	Balance  float64 `json:"balance" doc:"Balance in units of the currency" example:"25000"`
	Currency string  `json:"currency" enum:"INR,USD" doc:"The deployment's currency" example:"INR"`
}

// PartnerBrandBody is a gift card partners can buy.
type PartnerBrandBody struct {
	BrandCode     string    `json:"brandCode" doc:"The brand's code: what preview and orders take" example:"AMAZON"`
	BrandName     string    `json:"brandName" example:"Amazon"`
	LogoURL       string    `json:"logoUrl" example:"https://cdn.example.com/amazon.svg"`
	Categories    []string  `json:"categories" doc:"Category codes" example:"[\"SHOPPING\"]"`
	ValueType     string    `json:"valueType" enum:"FIXED,DYNAMIC" doc:"FIXED: one of denominations; DYNAMIC: any value from minValue to maxValue with at most two decimals" example:"FIXED"`
	Denominations []float64 `json:"denominations,omitempty" doc:"FIXED only: the values, ascending" example:"[100,500,1000]"`
	MinValue      *float64  `json:"minValue,omitempty" doc:"DYNAMIC only: the smallest value" example:"10"`
	MaxValue      *float64  `json:"maxValue,omitempty" doc:"DYNAMIC only: the largest value" example:"10000"`
	Currency      string    `json:"currency" enum:"INR,USD" example:"INR"`
	DiscountPct   float64   `json:"discountPct" doc:"The partner's discount on face value, in percent" example:"2.5"`
}

// PartnerBrandDetailBody is a brand with its texts.
type PartnerBrandDetailBody struct {
	PartnerBrandBody
	Description string `json:"description" example:"Shop millions of products."`
	Terms       string `json:"terms" example:"Valid for 12 months from issue."`
	HowToRedeem string `json:"howToRedeem" example:"Add the code at checkout."`
}

// PartnerStockBody is the stock of one denomination.
type PartnerStockBody struct {
	BrandCode    string  `json:"brandCode" example:"AMAZON"`
	Denomination float64 `json:"denomination" example:"500"`
	Available    bool    `json:"available" doc:"Whether it can be ordered now" example:"true"`
	Quantity     *int64  `json:"quantity" doc:"Cards left; null means unlimited" example:"120"`
}

// PartnerPreviewRequest asks for an order's price.
type PartnerPreviewRequest struct {
	BrandCode    string  `json:"brandCode" minLength:"1" maxLength:"64" example:"AMAZON"`
	Denomination float64 `json:"denomination" minimum:"0.01" doc:"Face value of one card, at most two decimals" example:"500"`
	Quantity     int     `json:"quantity" minimum:"1" maximum:"10" example:"2"`
}

// PartnerPreviewBody is an order's price.
type PartnerPreviewBody struct {
	BrandCode    string    `json:"brandCode" example:"AMAZON"`
	BrandName    string    `json:"brandName" example:"Amazon"`
	Denomination float64   `json:"denomination" example:"500"`
	Quantity     int       `json:"quantity" example:"2"`
	FaceValue    float64   `json:"faceValue" doc:"denomination × quantity" example:"1000"`
	Settlement   string    `json:"settlement" enum:"WALLET,CASH" example:"WALLET"`
	Amount       float64   `json:"amount" doc:"The authoritative price: WALLET, what the wallet is debited; CASH, what the user pays. faceValue less the partner's discount, rounded half up to the cent" example:"975"`
	Currency     string    `json:"currency" enum:"INR,USD" example:"INR"`
	QuoteID      string    `json:"quoteId" doc:"Send with the order to hold this amount until expiresAt"`
	ExpiresAt    time.Time `json:"expiresAt" doc:"When the quote stops holding the amount (10 minutes)"`
}

// PartnerCustomer is the partner's user an order is for.
type PartnerCustomer struct {
	Ref   string `json:"ref" minLength:"1" maxLength:"128" doc:"The partner's reference of its user (required)" example:"user-8812"`
	Email string `json:"email,omitempty" maxLength:"254" doc:"Optional email for delivery and support" example:"asha@example.com"`
	Phone string `json:"phone,omitempty" maxLength:"16" doc:"Optional phone in E.164 form; required for CASH orders on the INR deployment (the payment provider needs it)" example:"+919876543210"`
}

// PartnerOrderRequest places an order.
type PartnerOrderRequest struct {
	ClientOrderID string          `json:"clientOrderId" pattern:"^[A-Za-z0-9_-]{1,64}$" doc:"The partner's idempotency key: one order per clientOrderId, forever" example:"ord-2026-000123"`
	BrandCode     string          `json:"brandCode" minLength:"1" maxLength:"64" example:"AMAZON"`
	Denomination  float64         `json:"denomination" minimum:"0.01" example:"500"`
	Quantity      int             `json:"quantity" minimum:"1" maximum:"10" example:"2"`
	Customer      PartnerCustomer `json:"customer"`
	ReturnURL     string          `json:"returnUrl,omitempty" maxLength:"2048" doc:"CASH only: where the user goes after paying; an absolute https URL with a host (http outside production), no user info or markup, at most 2,048 characters (400 VALIDATION_FAILED otherwise)" example:"https://partner.example.com/orders/ord-2026-000123"`
	QuoteID       string          `json:"quoteId,omitempty" maxLength:"1024" doc:"Optional: a preview's quoteId, to pay its amount (400 QUOTE_EXPIRED past its expiry, 400 QUOTE_MISMATCH for another brand, denomination or quantity)"`
}

// PartnerCodeBody is one delivered card.
type PartnerCodeBody struct {
	Code              string  `json:"code" doc:"For some brands equal to pin" example:"AMZN-7KQ2-9XPL-44RT"`
	Pin               string  `json:"pin" doc:"May be an empty string" example:"4821"`
	ProviderVoucherID string  `json:"providerVoucherId" doc:"The human-facing voucher number, shown to the user" example:"V-100234"`
	Value             float64 `json:"value" example:"500"`
	Expiry            *string `json:"expiry" doc:"Expiry date (YYYY-MM-DD), or null" example:"2027-11-22"`
}

// PartnerOrderBody is a partner order.
type PartnerOrderBody struct {
	OrderID          uuid.UUID         `json:"orderId"`
	ClientOrderID    string            `json:"clientOrderId" example:"ord-2026-000123"`
	Status           string            `json:"status" enum:"INITIATED,PROCESSING,PENDING_PAYMENT,SUCCESS,FAILED,TIMEOUT,REFUNDED" example:"SUCCESS"`
	PaymentStatus    string            `json:"paymentStatus" enum:"NOT_REQUIRED,PENDING,PAID,EXPIRED,REFUNDED" doc:"NOT_REQUIRED for WALLET orders; for CASH: PENDING, then PAID, EXPIRED (never paid) or REFUNDED (paid and given back)" example:"NOT_REQUIRED"`
	Settlement       string            `json:"settlement" enum:"WALLET,CASH" example:"WALLET"`
	BrandCode        string            `json:"brandCode" example:"AMAZON"`
	BrandName        string            `json:"brandName" example:"Amazon"`
	Denomination     float64           `json:"denomination" example:"500"`
	Quantity         int               `json:"quantity" example:"2"`
	FaceValue        float64           `json:"faceValue" example:"1000"`
	AmountDebited    *float64          `json:"amountDebited,omitempty" doc:"WALLET orders: what the wallet was debited" example:"975"`
	CashAmount       *float64          `json:"cashAmount,omitempty" doc:"CASH orders: what the user pays" example:"975"`
	Currency         string            `json:"currency" enum:"INR,USD" example:"INR"`
	CustomerRef      string            `json:"customerRef" example:"user-8812"`
	Codes            []PartnerCodeBody `json:"codes" doc:"Empty until status SUCCESS"`
	PaymentSessionID *string           `json:"paymentSessionId,omitempty" doc:"CASH orders only. INR (Cashfree): the payment_session_id to render with the provider's SDK; USD (Stripe): the approval URL to redirect the user to"`
	PaymentExpiresAt *time.Time        `json:"paymentExpiresAt,omitempty" doc:"CASH orders only: when the payment session expires"`
	FailureReason    string            `json:"failureReason,omitempty" doc:"Why a FAILED order failed"`
	CreatedAt        time.Time         `json:"createdAt"`
	UpdatedAt        time.Time         `json:"updatedAt"`
}

// PartnerSettingsRequest sets a game's partner settings.
type PartnerSettingsRequest struct {
	Enabled     bool    `json:"enabled" doc:"Whether the game may use the partner API" example:"true"`
	Settlement  string  `json:"settlement" enum:"WALLET,CASH" example:"WALLET"`
	DiscountPct float64 `json:"discountPct,omitempty" minimum:"0" maximum:"90" doc:"The partner's discount on face value, 0 to 90 percent, at most two decimals; default 0" example:"2.5"`
}

// PartnerSettingsBody is a game's partner settings.
type PartnerSettingsBody struct {
	GameID      uuid.UUID `json:"gameId"`
	Enabled     bool      `json:"enabled" example:"true"`
	Settlement  string    `json:"settlement" enum:"WALLET,CASH" example:"WALLET"`
	DiscountPct float64   `json:"discountPct" example:"2.5"`
	// LiveClientSecret is set only by the PUT that enabled a game with no live client secret.
	LiveClientSecret *string `json:"liveClientSecret,omitempty" doc:"The live client secret, issued when partner mode is enabled on a game that has none; shown once (only a hash is kept). On live the token exchange needs it." example:"rcs_9a8b7c6d5e4f3g2h1i0jKLMNOPQRSTUVWXYZabcd"`
}

// PartnerSecretBody is a new client secret.
type PartnerSecretBody struct {
	Environment  string `json:"environment" enum:"live,test" example:"test"`
	ClientSecret string `json:"clientSecret" doc:"Shown once: only a hash is kept" example:"rcs_9a8b7c6d5e4f3g2h1i0jKLMNOPQRSTUVWXYZabcd"`
}

// PartnerCreditRequest funds a wallet.
type PartnerCreditRequest struct {
	Amount    float64 `json:"amount" minimum:"0.01" doc:"Units of the currency, at most two decimals" example:"25000"`
	Reference string  `json:"reference" minLength:"1" maxLength:"128" doc:"The operator's reference of the transfer: a reference seen before on this wallet is not credited again" example:"NEFT-2026-11-22-0042"`
}

// PartnerEntryBody is one wallet entry.
type PartnerEntryBody struct {
	ID           int64      `json:"id"`
	Kind         string     `json:"kind" enum:"CREDIT,DEBIT,REFUND"`
	Amount       float64    `json:"amount" doc:"Signed: debits are negative"`
	BalanceAfter float64    `json:"balanceAfter"`
	OrderID      *uuid.UUID `json:"orderId" nullable:"true"`
	Reference    string     `json:"reference,omitempty"`
	CreatedAt    time.Time  `json:"createdAt"`
}

// PartnerLedgerBody is a wallet with its entries.
type PartnerLedgerBody struct {
	Balance  float64            `json:"balance"`
	Currency string             `json:"currency"`
	Entries  []PartnerEntryBody `json:"entries" doc:"A page of the entries, oldest first; balance is the sum of all of them"`
	Page     int                `json:"page" doc:"Page number, from 1"`
	Limit    int                `json:"limit" doc:"Page size"`
	Total    int64              `json:"total" doc:"Entries in all"`
}

// PartnerEventAck acknowledges a provider webhook.
type PartnerEventAck struct {
	Received bool `json:"received" example:"true"`
}

func units(a money.Amount) float64 { return a.Units() }

func brandBody(b partner.Brand, currency string, discount money.Pct) PartnerBrandBody {
	out := PartnerBrandBody{BrandCode: b.Code, BrandName: b.Name, LogoURL: b.LogoURL, Categories: b.Categories,
		ValueType: string(b.ValueType), Currency: currency, DiscountPct: discount.Float()}
	if out.Categories == nil {
		out.Categories = []string{}
	}
	if b.ValueType == partner.Dynamic {
		lo, hi := b.MinValue.Units(), b.MaxValue.Units()
		out.MinValue, out.MaxValue = &lo, &hi
	} else {
		out.Denominations = make([]float64, len(b.Denominations))
		for i, d := range b.Denominations {
			out.Denominations[i] = d.Units()
		}
	}
	return out
}

func orderBody(v orders.View) PartnerOrderBody {
	t := v.Partner
	out := PartnerOrderBody{OrderID: v.ID, ClientOrderID: t.ClientOrderID, Status: string(v.Status), PaymentStatus: string(t.Payment.Status),
		Settlement: string(t.Settlement), BrandCode: t.BrandCode, BrandName: t.BrandName, Denomination: units(v.Denomination),
		Quantity: v.Quantity, FaceValue: units(v.FaceValue), Currency: t.Currency, CustomerRef: t.Customer.Ref,
		Codes: make([]PartnerCodeBody, 0, len(v.Codes)), CreatedAt: v.CreatedAt, UpdatedAt: v.UpdatedAt}
	amount := units(t.Amount)
	if t.Settlement == orders.Cash {
		out.CashAmount, out.PaymentExpiresAt = &amount, t.Payment.ExpiresAt
		token := t.Payment.PayerToken
		out.PaymentSessionID = &token
	} else {
		out.AmountDebited = &amount
	}
	if v.Status == orders.Failed {
		out.FailureReason = v.FailureReason
	}
	if v.Status == orders.Success {
		for _, c := range v.Codes {
			cb := PartnerCodeBody{Code: c.Code, Pin: c.Pin, ProviderVoucherID: c.ProviderVoucherID, Value: units(c.Value)}
			if c.Expiry != nil {
				d := c.Expiry.UTC().Format(time.DateOnly)
				cb.Expiry = &d
			}
			out.Codes = append(out.Codes, cb)
		}
	}
	return out
}

func settingsBody(s partner.Settings) PartnerSettingsBody {
	return PartnerSettingsBody{GameID: s.GameID, Enabled: s.Enabled, Settlement: string(s.Settlement), DiscountPct: s.DiscountPct.Float()}
}
