package partnerapi

import (
	"context"
	"github.com/danielgtaylor/huma/v2"
	"net/http"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/money"
	"github.com/rewardsco/rewards/core/orders"
	"github.com/rewardsco/rewards/core/partner"
	"github.com/rewardsco/rewards/core/studio"
)

type handlers struct{ svc *partner.Service }

// Inputs and outputs.

// envelope is the answer of a partner operation: its body in the success envelope.
type envelope[T any] = httpapi.Output[httpapi.Envelope[T]]

// tokenInput is the token exchange's body, JSON or a form, read by parseTokenRequest. Its
// media type is the request body's, not a parameter of the document (OpenAPI ignores a header
// parameter named Content-Type), so a resolver reads it.
type tokenInput struct {
	RawBody     []byte
	contentType string
}

// Resolve implements huma.Resolver: it keeps the body's media type.
func (in *tokenInput) Resolve(ctx huma.Context) []error {
	in.contentType = ctx.Header("Content-Type")
	return nil
}

// PartnerPage is the paging of partner lists: limit default 20.
type PartnerPage struct {
	Limit int `query:"limit" minimum:"1" maximum:"100" default:"20" doc:"Page size, at most 100"`
	Page  int `query:"page" minimum:"1" maximum:"10000" default:"1" doc:"Page number, from 1; page × limit is at most 10,000"`
}

// Resolve implements huma.Resolver: page × limit is at most 10,000 (400 VALIDATION_FAILED).
func (p *PartnerPage) Resolve(huma.Context) []error { return httpapi.CheckDepth(p.Page, p.Limit) }

func (p PartnerPage) kit() httpapi.PageQuery { return httpapi.PageQuery{Limit: p.Limit, Page: p.Page} }

type brandsInput struct {
	PartnerPage
	Search string `query:"search" maxLength:"100" doc:"Keeps brands whose name or code contains this (any case)"`
}

type brandInput struct {
	BrandCode string `path:"brandCode" maxLength:"64" doc:"The brand's code"`
}

type stockInput struct {
	BrandCode    string  `path:"brandCode" maxLength:"64" doc:"The brand's code"`
	Denomination float64 `query:"denomination" required:"true" minimum:"0.01" doc:"The face value to check"`
}

type previewInput struct {
	Body PartnerPreviewRequest
}

type placeInput struct {
	Body PartnerOrderRequest
}

type placeOutput struct {
	Status int
	Replay string `header:"X-Idempotent-Replay" doc:"true when this answer is the order an earlier placement with the same clientOrderId made"`
	Body   httpapi.Envelope[PartnerOrderBody]
}

type orderInput struct {
	OrderID string `path:"orderId" maxLength:"64" doc:"The order id"`
}

type ordersInput struct {
	PartnerPage
	CustomerRef   string `query:"customerRef" maxLength:"128" doc:"Keeps the orders of one customer.ref"`
	ClientOrderID string `query:"clientOrderId" maxLength:"64" doc:"Keeps the order of one clientOrderId"`
}

// GameInput is a game id in the path (exported: Huma fills the fields of embedded structs only when exported).
type GameInput struct {
	GameID string `path:"gameId" maxLength:"64" doc:"The game id"`
}

type settingsInput struct {
	GameInput
	Body PartnerSettingsRequest
}

// GameEnvInput is a game id and an environment in the path.
type GameEnvInput struct {
	GameInput
	Environment string `path:"environment" enum:"live,test" doc:"The environment"`
}

type creditInput struct {
	GameEnvInput
	Body PartnerCreditRequest
}

type creditOutput struct {
	Status int
	Replay string `header:"X-Idempotent-Replay" doc:"true when the reference was credited before and nothing changed"`
	Body   PartnerWalletBody
}

type webhookInput struct {
	StripeSignature    string `header:"Stripe-Signature" doc:"Stripe's signature"`
	CashfreeSignature  string `header:"X-Webhook-Signature" doc:"Cashfree's signature"`
	CashfreeTimestamp  string `header:"X-Webhook-Timestamp" doc:"Cashfree's timestamp"`
	CashfreeAPIVersion string `header:"X-Webhook-Version" doc:"Cashfree's webhook version"`
	RawBody            []byte
}

// header reads the signature headers the providers send, by name.
func (in *webhookInput) header(name string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Stripe-Signature":
		return in.StripeSignature
	case "X-Webhook-Signature":
		return in.CashfreeSignature
	case "X-Webhook-Timestamp":
		return in.CashfreeTimestamp
	case "X-Webhook-Version":
		return in.CashfreeAPIVersion
	}
	return ""
}

type webhookOutput struct {
	Body PartnerEventAck
}

// Partner handlers.

func (h handlers) token(ctx context.Context, in *tokenInput) (*envelope[PartnerTokenBody], error) {
	req, err := parseTokenRequest(ctx, in.contentType, in.RawBody)
	if err != nil {
		return nil, err
	}
	env, _ := ctx.Value(envKey{}).(studio.Environment)
	token, ttl, err := h.svc.Token(ctx, req.ClientID, req.ClientSecret, env)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &envelope[PartnerTokenBody]{Body: httpapi.Wrap(ctx, http.StatusOK, "token issued",
		PartnerTokenBody{AccessToken: token, TokenType: "Bearer", ExpiresIn: int(ttl.Seconds())})}, nil
}

func (h handlers) config(ctx context.Context, _ *struct{}) (*envelope[PartnerConfigBody], error) {
	c := callerFrom(ctx)
	return &envelope[PartnerConfigBody]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK",
		PartnerConfigBody{Settlement: string(c.Settings.Settlement), Currency: h.svc.Currency()})}, nil
}

func (h handlers) wallet(ctx context.Context, _ *struct{}) (*envelope[PartnerWalletBody], error) {
	bal, err := h.svc.Wallet(ctx, callerFrom(ctx))
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &envelope[PartnerWalletBody]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", PartnerWalletBody{Balance: bal.Units(), Currency: h.svc.Currency()})}, nil
}

func (h handlers) brands(ctx context.Context, in *brandsInput) (*envelope[httpapi.Page[PartnerBrandBody]], error) {
	c, q := callerFrom(ctx), in.kit()
	list, total, err := h.svc.Brands(ctx, in.Search, q.Limit, q.Offset())
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	page := httpapi.PageOf(q, list, total, func(b partner.Brand) PartnerBrandBody { return brandBody(b, h.svc.Currency(), c.Settings.DiscountPct) })
	return &envelope[httpapi.Page[PartnerBrandBody]]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", page)}, nil
}

func (h handlers) brand(ctx context.Context, in *brandInput) (*envelope[PartnerBrandDetailBody], error) {
	b, err := h.svc.Brand(ctx, in.BrandCode)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := PartnerBrandDetailBody{PartnerBrandBody: brandBody(b, h.svc.Currency(), callerFrom(ctx).Settings.DiscountPct),
		Description: b.Description, Terms: b.Terms, HowToRedeem: b.HowToRedeem}
	return &envelope[PartnerBrandDetailBody]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", out)}, nil
}

func (h handlers) stock(ctx context.Context, in *stockInput) (*envelope[PartnerStockBody], error) {
	d, err := amountOf(ctx, "query.denomination", in.Denomination)
	if err != nil {
		return nil, err
	}
	st, err := h.svc.Stock(ctx, callerFrom(ctx), in.BrandCode, d)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &envelope[PartnerStockBody]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK",
		PartnerStockBody{BrandCode: st.BrandCode, Denomination: st.Denomination.Units(), Available: st.Available, Quantity: st.Quantity})}, nil
}

func (h handlers) preview(ctx context.Context, in *previewInput) (*envelope[PartnerPreviewBody], error) {
	d, err := amountOf(ctx, "body.denomination", in.Body.Denomination)
	if err != nil {
		return nil, err
	}
	p, err := h.svc.Preview(ctx, callerFrom(ctx), in.Body.BrandCode, d, in.Body.Quantity)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &envelope[PartnerPreviewBody]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", PartnerPreviewBody{
		BrandCode: p.Brand.Code, BrandName: p.Brand.Name, Denomination: p.Denomination.Units(), Quantity: p.Quantity,
		FaceValue: p.FaceValue.Units(), Settlement: string(p.Settlement), Amount: p.Amount.Units(), Currency: p.Currency,
		QuoteID: p.QuoteID, ExpiresAt: p.ExpiresAt})}, nil
}

func (h handlers) place(ctx context.Context, in *placeInput) (*placeOutput, error) {
	d, err := amountOf(ctx, "body.denomination", in.Body.Denomination)
	if err != nil {
		return nil, err
	}
	b := in.Body
	v, replayed, err := h.svc.Place(ctx, callerFrom(ctx), partner.PlaceRequest{ClientOrderID: b.ClientOrderID, BrandCode: b.BrandCode,
		Denomination: d, Quantity: b.Quantity, Customer: orders.Customer{Ref: b.Customer.Ref, Email: b.Customer.Email, Phone: b.Customer.Phone},
		ReturnURL: b.ReturnURL, QuoteID: b.QuoteID})
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &placeOutput{Status: http.StatusCreated}
	message := "order placed"
	if replayed {
		out.Status, out.Replay, message = http.StatusOK, "true", "order already placed with this clientOrderId"
	}
	out.Body = httpapi.Wrap(ctx, out.Status, message, orderBody(v))
	return out, nil
}

func (h handlers) order(ctx context.Context, in *orderInput) (*envelope[PartnerOrderBody], error) {
	id, err := httpapi.ParseID(in.OrderID, partner.ErrOrderNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	v, err := h.svc.Order(ctx, callerFrom(ctx), id)
	return httpapi.ReplyWrapped(ctx, "OK", v, err, orderBody)
}

func (h handlers) orders(ctx context.Context, in *ordersInput) (*envelope[httpapi.Page[PartnerOrderBody]], error) {
	q := in.kit()
	list, total, err := h.svc.Orders(ctx, callerFrom(ctx), in.CustomerRef, in.ClientOrderID, q.Limit, q.Offset())
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &envelope[httpapi.Page[PartnerOrderBody]]{Body: httpapi.Wrap(ctx, http.StatusOK, "OK", httpapi.PageOf(q, list, total, orderBody))}, nil
}

// Operator handlers.

func (h handlers) putSettings(ctx context.Context, in *settingsInput) (*httpapi.Output[PartnerSettingsBody], error) {
	id, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	d, err := money.PctFromFloat(in.Body.DiscountPct)
	if err != nil {
		return nil, httpapi.ValidationError(ctx, "body.discountPct", err.Error(), in.Body.DiscountPct)
	}
	st, liveSecret, err := h.svc.PutSettings(ctx, partner.Settings{GameID: id, Enabled: in.Body.Enabled, Settlement: orders.Settlement(in.Body.Settlement), DiscountPct: d})
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := settingsBody(st)
	if liveSecret != "" {
		out.LiveClientSecret = &liveSecret
	}
	return &httpapi.Output[PartnerSettingsBody]{Body: out}, nil
}

func (h handlers) getSettings(ctx context.Context, in *GameInput) (*httpapi.Output[PartnerSettingsBody], error) {
	id, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	st, err := h.svc.GetSettings(ctx, id)
	return httpapi.Reply(ctx, st, err, settingsBody)
}

func (h handlers) secret(ctx context.Context, in *GameEnvInput) (*httpapi.Output[PartnerSecretBody], error) {
	id, env, err := in.parse()
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	secret, err := h.svc.IssueSecret(ctx, id, env)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &httpapi.Output[PartnerSecretBody]{Body: PartnerSecretBody{Environment: string(env), ClientSecret: secret}}, nil
}

func (h handlers) credit(ctx context.Context, in *creditInput) (*creditOutput, error) {
	id, env, err := in.parse()
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	amount, err := amountOf(ctx, "body.amount", in.Body.Amount)
	if err != nil {
		return nil, err
	}
	bal, credited, err := h.svc.Credit(ctx, id, env, amount, in.Body.Reference)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &creditOutput{Status: http.StatusCreated, Body: PartnerWalletBody{Balance: bal.Units(), Currency: h.svc.Currency()}}
	if !credited {
		out.Status, out.Replay = http.StatusOK, "true"
	}
	return out, nil
}

func (h handlers) ledger(ctx context.Context, in *ledgerInput) (*httpapi.Output[PartnerLedgerBody], error) {
	id, env, err := in.parse()
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	if _, err := h.svc.GetSettings(ctx, id); err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	bal, entries, total, err := h.svc.Ledger(ctx, id, env, in.Limit, (in.Page-1)*in.Limit)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := PartnerLedgerBody{Balance: bal.Units(), Currency: h.svc.Currency(), Entries: make([]PartnerEntryBody, len(entries)),
		Page: in.Page, Limit: in.Limit, Total: total}
	for i, e := range entries {
		out.Entries[i] = PartnerEntryBody{ID: e.ID, Kind: string(e.Kind), Amount: e.Amount.Units(), BalanceAfter: e.BalanceAfter.Units(),
			OrderID: e.OrderID, Reference: e.Reference, CreatedAt: e.CreatedAt}
	}
	return &httpapi.Output[PartnerLedgerBody]{Body: out}, nil
}

// ledgerInput pages the operator's view of a wallet's ledger.
type ledgerInput struct {
	GameEnvInput
	Limit int `query:"limit" minimum:"1" maximum:"100" default:"100" doc:"Page size, at most 100"`
	Page  int `query:"page" minimum:"1" maximum:"10000" default:"1" doc:"Page number, from 1; page × limit is at most 10,000"`
}

// Resolve implements huma.Resolver: page × limit is at most 10,000.
func (in *ledgerInput) Resolve(huma.Context) []error { return httpapi.CheckDepth(in.Page, in.Limit) }

// Provider webhooks.

func (h handlers) event(ctx context.Context, provider string, in *webhookInput) (*webhookOutput, error) {
	if err := h.svc.HandleEvent(ctx, provider, in.header, in.RawBody); err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &webhookOutput{Body: PartnerEventAck{Received: true}}, nil
}

// parse reads the game id (a malformed one is GAME_NOT_FOUND) and the environment.
func (in GameEnvInput) parse() (uuid.UUID, studio.Environment, error) {
	id, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return uuid.Nil, "", err
	}
	env, err := parseEnv(in.Environment)
	return id, env, err
}
