package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/players"
)

const tagPlayer = "Player"

type playerCtxKey struct{}

// playerFrom returns the player the request's bearer token authenticated.
func playerFrom(ctx context.Context) players.Player {
	p, _ := ctx.Value(playerCtxKey{}).(players.Player)
	return p
}

// requirePlayer verifies the bearer token against the game and environment of the API key and
// checks x-game-uuid when sent. It runs after requireAPIKey.
func (a *handlers) requirePlayer(hctx huma.Context, next func(huma.Context)) {
	ctx := hctx.Context()
	p, err := a.Players.Authenticate(ctx, callerFrom(ctx), bearerToken(hctx.Header("Authorization")), hctx.Header("x-game-uuid"))
	if err != nil {
		writeHumaError(hctx, playersError(ctx, err))
		return
	}
	next(huma.WithValue(hctx, playerCtxKey{}, p))
}

// playerOperation declares an operation that needs the game's API key and a player token.
func (a *handlers) playerOperation(op huma.Operation) huma.Operation {
	op.Security = []map[string][]string{{schemeAPIKey: {}, schemePlayer: {}}}
	op.Middlewares = append(huma.Middlewares{a.requireAPIKey, a.requirePlayer}, op.Middlewares...)
	op.Errors = appendStatuses(op.Errors, http.StatusUnauthorized, http.StatusForbidden, http.StatusMisdirectedRequest)
	return op
}

// playersError maps the players module's errors to responses.
func playersError(ctx context.Context, err error) *APIError {
	var limit *players.LimitError
	switch {
	case errors.As(err, &limit):
		return newAPIError(ctx, http.StatusTooManyRequests, limit.Code, limit.Error()).
			WithHeader("Retry-After", strconv.FormatInt(int64((limit.RetryAfter+time.Second-1)/time.Second), 10))
	case errors.Is(err, players.ErrInvalid):
		return newAPIError(ctx, http.StatusBadRequest, "VALIDATION_FAILED", err.Error())
	case errors.Is(err, players.ErrPlayerNotFound):
		return newAPIError(ctx, http.StatusNotFound, "PLAYER_NOT_FOUND", err.Error())
	case errors.Is(err, players.ErrPlayerDisabled):
		return newAPIError(ctx, http.StatusForbidden, "PLAYER_DISABLED", err.Error())
	case errors.Is(err, players.ErrPlayerMismatch):
		return newAPIError(ctx, http.StatusForbidden, "PLAYER_MISMATCH", err.Error())
	case errors.Is(err, players.ErrTokenMissing):
		return newAPIError(ctx, http.StatusUnauthorized, "TOKEN_MISSING", err.Error())
	case errors.Is(err, players.ErrTokenInvalid):
		return newAPIError(ctx, http.StatusUnauthorized, "TOKEN_INVALID", err.Error())
	case errors.Is(err, players.ErrTokenOtherGame):
		return newAPIError(ctx, http.StatusUnauthorized, "TOKEN_WRONG_GAME", err.Error())
	case errors.Is(err, players.ErrOTPInvalid):
		return newAPIError(ctx, http.StatusUnauthorized, "OTP_INVALID", err.Error())
	case errors.Is(err, players.ErrOTPExpired):
		return newAPIError(ctx, http.StatusUnauthorized, "OTP_EXPIRED", err.Error())
	case errors.Is(err, players.ErrOTPUsed):
		return newAPIError(ctx, http.StatusUnauthorized, "OTP_USED", err.Error())
	case errors.Is(err, players.ErrOTPExhausted):
		return newAPIError(ctx, http.StatusUnauthorized, "OTP_ATTEMPTS_EXCEEDED", err.Error())
	case errors.Is(err, players.ErrSMSFailed):
		loggerFrom(ctx).WarnContext(ctx, "sms send failed", "err", err)
		return newAPIError(ctx, http.StatusBadGateway, "SMS_SEND_FAILED", players.ErrSMSFailed.Error())
	case errors.Is(err, players.ErrFileNotFound):
		return newAPIError(ctx, http.StatusNotFound, "FILE_NOT_FOUND", "file not found")
	default:
		return internal(ctx, err)
	}
}

// TokenBody is a login result.
type TokenBody struct {
	AccessToken string `json:"access_token" doc:"The player token (JWT) for Authorization: Bearer"`
	TokenType   string `json:"token_type" doc:"Always Bearer" example:"Bearer"`
	ExpiresIn   int64  `json:"expires_in" doc:"Seconds until the token expires" example:"604800"`
}

func toTokenBody(t players.Token) TokenBody {
	return TokenBody{AccessToken: t.AccessToken, TokenType: "Bearer", ExpiresIn: int64(t.ExpiresIn / time.Second)}
}

// CreatedPlayerBody is CreatePlayerResponseDto.
type CreatedPlayerBody struct {
	ID        uuid.UUID `json:"id" doc:"Player id"`
	UUID      string    `json:"uuid" doc:"The studio's identifier of the player" example:"user-8812"`
	IsBlocked bool      `json:"isBlocked" doc:"True when the player deleted its account"`
	Created   bool      `json:"created" doc:"True when this call created the player, false when it already existed"`
}

// BulkPlayerBody is one player of a bulk creation.
type BulkPlayerBody struct {
	ID      uuid.UUID `json:"id" doc:"Player id"`
	UUID    string    `json:"uuid" doc:"The studio's identifier of the player"`
	Created bool      `json:"created" doc:"True when this call created the player"`
}

// BulkCreatedBody is the result of a bulk creation.
type BulkCreatedBody struct {
	Players       []BulkPlayerBody `json:"players" doc:"Every distinct uuid sent, in order"`
	CreatedCount  int              `json:"createdCount" doc:"How many players this call created"`
	ExistingCount int              `json:"existingCount" doc:"How many already existed"`
}

// ProfileBody is a player's profile.
type ProfileBody struct {
	ID              uuid.UUID  `json:"id" doc:"Player id"`
	UUID            *string    `json:"uuid" doc:"The studio's identifier of the player, or null"`
	Phone           *string    `json:"phone" doc:"Login phone (E.164), or null"`
	Name            string     `json:"name" doc:"Display name"`
	Email           string     `json:"email" doc:"Email address"`
	IsBlocked       bool       `json:"isBlocked" doc:"True when the player deleted its account"`
	CookieConsent   bool       `json:"cookieConsent" doc:"Whether the player consented to cookies"`
	CookieConsentAt *time.Time `json:"cookieConsentAt" doc:"When it consented, or null"`
	CreatedAt       time.Time  `json:"createdAt" doc:"When the player was created"`
}

func toProfileBody(p players.Player) ProfileBody {
	return ProfileBody{ID: p.ID, UUID: p.UUID, Phone: p.Phone, Name: p.Name, Email: p.Email, IsBlocked: p.IsBlocked,
		CookieConsent: p.CookieConsentAt != nil, CookieConsentAt: p.CookieConsentAt, CreatedAt: p.CreatedAt}
}

// AddressBody is an Indian delivery address.
type AddressBody struct {
	Name      string `json:"name,omitempty" maxLength:"100" doc:"Recipient name"`
	Line1     string `json:"line1" minLength:"1" maxLength:"200" doc:"First address line" example:"12 MG Road"`
	Line2     string `json:"line2,omitempty" maxLength:"200" doc:"Second address line"`
	Landmark  string `json:"landmark,omitempty" maxLength:"200" doc:"Nearby landmark"`
	City      string `json:"city" minLength:"1" maxLength:"100" doc:"City" example:"Bengaluru"`
	State     string `json:"state" doc:"Indian state or union territory" example:"Karnataka"`
	PinCode   string `json:"pinCode" pattern:"^[1-9][0-9]{5}$" doc:"6-digit PIN code" example:"560001"`
	Phone     string `json:"phone,omitempty" pattern:"^\\+[1-9][0-9]{7,14}$" doc:"Contact phone for delivery, E.164"`
	IsDefault bool   `json:"isDefault,omitempty" doc:"The default delivery address (at most one)"`
}

// GcommerceProfileBody is PlayerProfileResponseDto.
type GcommerceProfileBody struct {
	ID                uuid.UUID     `json:"id" doc:"Player id"`
	UUID              *string       `json:"uuid" doc:"The studio's identifier of the player, or null"`
	Name              string        `json:"name" doc:"Name"`
	Email             string        `json:"email" doc:"Email"`
	Phone             string        `json:"phone" doc:"Contact phone (E.164); the login phone when none was set"`
	ProfilePictureURL *string       `json:"profilePictureUrl" doc:"Address of the profile picture, or null"`
	Addresses         []AddressBody `json:"addresses" doc:"Delivery addresses"`
}

func toGcommerceBody(p players.Player) GcommerceProfileBody {
	b := GcommerceProfileBody{ID: p.ID, UUID: p.UUID, Name: p.Name, Email: p.Email, Phone: p.ContactPhone, Addresses: []AddressBody{}}
	if b.Phone == "" && p.Phone != nil {
		b.Phone = *p.Phone
	}
	if p.PictureKey != "" {
		u := "/files/" + p.PictureKey
		b.ProfilePictureURL = &u
	}
	for _, a := range p.Addresses {
		b.Addresses = append(b.Addresses, AddressBody{Name: a.Name, Line1: a.Line1, Line2: a.Line2, Landmark: a.Landmark,
			City: a.City, State: a.State, PinCode: a.PinCode, Phone: a.Phone, IsDefault: a.Default})
	}
	return b
}

// StoreSettingsBody is the store settings record.
type StoreSettingsBody struct {
	RewardsEnabled     bool   `json:"rewardsEnabled" doc:"Whether the rewards store is on"`
	GcommerceEnabled   bool   `json:"gcommerceEnabled" doc:"Whether goods commerce is on"`
	DefaultLandingPage string `json:"defaultLandingPage" doc:"Page the store opens on" example:"rewards"`
}

func toSettingsBody(s players.StoreSettings) StoreSettingsBody {
	return StoreSettingsBody{RewardsEnabled: s.RewardsEnabled, GcommerceEnabled: s.GcommerceEnabled, DefaultLandingPage: s.DefaultLandingPage}
}

// PlayerGameBody describes the game that owns the key.
type PlayerGameBody struct {
	ID          uuid.UUID  `json:"id" doc:"Game id"`
	StudioID    uuid.UUID  `json:"studioId" doc:"Owning studio"`
	Name        string     `json:"name" doc:"Game name"`
	StoreURL    string     `json:"storeUrl" doc:"Base address of the game's store"`
	Environment string     `json:"environment" doc:"live or test, from the host called" example:"test"`
	Currency    string     `json:"currency" doc:"Deployment currency" example:"INR"`
	Coins       []CoinBody `json:"coins" doc:"The game's coins"`
}

type uuidBody struct {
	Body struct {
		UUID string `json:"uuid" minLength:"1" maxLength:"128" doc:"The studio's identifier of the player" example:"user-8812"`
	}
}

type bulkInput struct {
	Body struct {
		UUIDs []string `json:"uuids" minItems:"1" maxItems:"1000" doc:"Studio identifiers, 1 to 1,000" example:"[\"user-1\",\"user-2\"]"`
	}
}

type batchInput struct {
	Body struct {
		UUID []string `json:"uuid" minItems:"1" maxItems:"1000" doc:"Studio identifiers, 1 to 1,000" example:"[\"user-1\",\"user-2\"]"`
	}
}

type otpInput struct {
	Body struct {
		Phone     string `json:"phone" pattern:"^\\+[1-9][0-9]{7,14}$" doc:"E.164 phone number" example:"+919876543210"`
		Consent   *bool  `json:"consent,omitempty" doc:"Whether the player consented to the terms"`
		Source    string `json:"source,omitempty" maxLength:"64" doc:"Where the request came from"`
		UserAgent string `json:"userAgent,omitempty" maxLength:"512" doc:"The player's user agent"`
	}
}

type otpOutput struct {
	Body struct {
		Message     string `json:"message" example:"OTP sent"`
		ExpiresIn   int64  `json:"expiresIn" doc:"Seconds the code stays valid" example:"300"`
		ResendAfter int64  `json:"resendAfter" doc:"Seconds before a resend is allowed" example:"30"`
	}
}

type loginInput struct {
	Body struct {
		Phone string `json:"phone" pattern:"^\\+[1-9][0-9]{7,14}$" doc:"E.164 phone number" example:"+919876543210"`
		OTP   string `json:"otp" pattern:"^[0-9]{6}$" doc:"The 6-digit code" example:"123456"`
	}
}

type gameUUIDHeader struct {
	GameUUID string `header:"x-game-uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player (403 PLAYER_MISMATCH)"`
}

type updatePlayerInput struct {
	Body struct {
		Name  *string `json:"name,omitempty" maxLength:"100" doc:"Display name"`
		Email *string `json:"email,omitempty" maxLength:"254" doc:"Email address (empty clears it)"`
	}
}

type gcommercePatchInput struct {
	GameUUID string `header:"x-game-uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player"`
	Body     struct {
		Name      *string        `json:"name,omitempty" maxLength:"100" doc:"Name"`
		Email     *string        `json:"email,omitempty" maxLength:"254" doc:"Email address"`
		Phone     *string        `json:"phone,omitempty" doc:"Contact phone, E.164 (empty clears it)"`
		Addresses *[]AddressBody `json:"addresses,omitempty" maxItems:"10" doc:"Replaces the delivery addresses"`
	}
}

type uploadInput struct {
	GameUUID string `header:"x-game-uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player"`
	RawBody  huma.MultipartFormFiles[struct {
		File huma.FormFile `form:"file" required:"true" doc:"PNG, JPEG or WebP, at most 5 MB"`
	}]
}

type fileInput struct {
	Name string `path:"name" pattern:"^[A-Za-z0-9._-]{1,200}$" doc:"File name from a profilePictureUrl"`
}

type fileOutput struct {
	ContentType  string `header:"Content-Type"`
	CacheControl string `header:"Cache-Control"`
	Body         []byte
}

type messageOutput struct {
	Body struct {
		Message         string     `json:"message" doc:"What happened"`
		IsBlocked       *bool      `json:"isBlocked,omitempty" doc:"Set by DELETE /player/me"`
		CookieConsentAt *time.Time `json:"cookieConsentAt,omitempty" doc:"Set by POST /player/cookie-consent"`
	}
}

type storeSettingsInput struct {
	GameID string `path:"gameId" format:"uuid" doc:"Game id"`
	Body   struct {
		RewardsEnabled     *bool   `json:"rewardsEnabled,omitempty" doc:"Whether the rewards store is on"`
		GcommerceEnabled   *bool   `json:"gcommerceEnabled,omitempty" doc:"Whether goods commerce is on"`
		DefaultLandingPage *string `json:"defaultLandingPage,omitempty" enum:"rewards,gcommerce,home" doc:"Page the store opens on"`
	}
}

type themeInput struct {
	GameID string         `path:"gameId" format:"uuid" doc:"Game id"`
	Body   map[string]any `doc:"The theme and configuration object the store renders with; replaces the previous one"`
}

type themeOutput struct {
	Body map[string]any
}

func (a *handlers) registerPlayers() {
	tags := []string{tagPlayer}

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID:   "player-create-with-uuid",
		Method:        http.MethodPost,
		Path:          "/player/create-with-uuid",
		Summary:       "Create a player with the studio's uuid",
		Description:   "Creates the player, or returns the existing one with that uuid (`created` tells which). A blocked player is returned as found with `isBlocked: true`. uuid is 1 to 128 characters, unique per game and environment.",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *uuidBody) (*struct{ Body CreatedPlayerBody }, error) {
		p, err := a.Players.CreateWithUUID(ctx, callerFrom(ctx), in.Body.UUID)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body CreatedPlayerBody }{Body: CreatedPlayerBody{ID: p.ID, UUID: p.StudioRef(), IsBlocked: p.IsBlocked, Created: p.Created}}, nil
	})

	bulk := func(ctx context.Context, uuids []string) (*struct{ Body BulkCreatedBody }, error) {
		list, err := a.Players.CreateBulk(ctx, callerFrom(ctx), uuids)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		out := BulkCreatedBody{Players: make([]BulkPlayerBody, len(list))}
		for i, p := range list {
			out.Players[i] = BulkPlayerBody{ID: p.ID, UUID: p.StudioRef(), Created: p.Created}
			if p.Created {
				out.CreatedCount++
			} else {
				out.ExistingCount++
			}
		}
		return &struct{ Body BulkCreatedBody }{Body: out}, nil
	}
	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID:   "player-create-with-bulk-uuids",
		Method:        http.MethodPost,
		Path:          "/player/create-with-bulk-uuids",
		Summary:       "Create players in bulk",
		Description:   "Creates a player for each uuid that has none (1 to 1,000 uuids; repeats count once), all in one transaction. Answers every player with whether this call created it.",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *bulkInput) (*struct{ Body BulkCreatedBody }, error) {
		return bulk(ctx, in.Body.UUIDs)
	})
	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID:   "player-create-with-uuid-batch",
		Method:        http.MethodPost,
		Path:          "/player/create-with-uuid-batch",
		Summary:       "Create players in bulk (alias)",
		Description:   "The getting-started guide's alias of /player/create-with-bulk-uuids, with the body field `uuid` (an array). Same rules and answer.",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		Errors:        []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *batchInput) (*struct{ Body BulkCreatedBody }, error) {
		return bulk(ctx, in.Body.UUID)
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-login-federated",
		Method:      http.MethodPost,
		Path:        "/player/login/federatedByStudio",
		Summary:     "Log a player in by the studio's uuid",
		Description: "Issues a player token for the player the studio created with this uuid. 404 PLAYER_NOT_FOUND when there is none; 403 PLAYER_DISABLED when it deleted its account. The token works only with this game's key of this environment, for REWARDS_PLAYER_TOKEN_TTL (default 168h).",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound},
	}), func(ctx context.Context, in *uuidBody) (*struct{ Body TokenBody }, error) {
		t, err := a.Players.FederatedLogin(ctx, callerFrom(ctx), in.Body.UUID)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body TokenBody }{Body: toTokenBody(t)}, nil
	})

	otp := func(ctx context.Context, in *otpInput) (*otpOutput, error) {
		sent, err := a.Players.RequestOTP(ctx, callerFrom(ctx), in.Body.Phone)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		out := &otpOutput{}
		out.Body.Message = "OTP sent"
		out.Body.ExpiresIn, out.Body.ResendAfter = int64(sent.ExpiresIn/time.Second), int64(sent.ResendAfter/time.Second)
		return out, nil
	}
	otpRules := "Sends a 6-digit code by SMS, valid 5 minutes (a new code replaces the previous one). At most one send per 30 s (429 OTP_RESEND_TOO_SOON with Retry-After) and 5 sends per phone per hour (429 OTP_RATE_LIMITED). 403 PLAYER_DISABLED for a deleted account; 502 SMS_SEND_FAILED when the SMS gateway refuses."
	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-request-otp",
		Method:      http.MethodPost,
		Path:        "/player/request-otp",
		Summary:     "Request a login code",
		Description: otpRules,
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests, http.StatusBadGateway},
	}), otp)
	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-resend-otp",
		Method:      http.MethodPost,
		Path:        "/player/resend-otp",
		Summary:     "Resend a login code",
		Description: otpRules,
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests, http.StatusBadGateway},
	}), otp)

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-login",
		Method:      http.MethodPost,
		Path:        "/player/login",
		Summary:     "Log a player in with a code",
		Description: "Checks the latest code sent to the phone and issues a player token; the first successful login of a phone creates its player. 401 OTP_INVALID (wrong code or none requested), OTP_EXPIRED, OTP_USED (a code works once), OTP_ATTEMPTS_EXCEEDED (5 wrong tries kill a code); 429 OTP_RATE_LIMITED after 10 failed checks per phone per hour; 403 PLAYER_DISABLED.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests},
	}), func(ctx context.Context, in *loginInput) (*struct{ Body TokenBody }, error) {
		t, err := a.Players.Login(ctx, callerFrom(ctx), in.Body.Phone, in.Body.OTP)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body TokenBody }{Body: toTokenBody(t)}, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-profile",
		Method:      http.MethodGet,
		Path:        "/player/profile",
		Summary:     "The player's profile",
		Description: "The profile of the token's player.",
		Tags:        tags,
	}), func(ctx context.Context, _ *struct{}) (*struct{ Body ProfileBody }, error) {
		return &struct{ Body ProfileBody }{Body: toProfileBody(playerFrom(ctx))}, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-update",
		Method:      http.MethodPut,
		Path:        "/player",
		Summary:     "Update the player's profile",
		Description: "Changes name (at most 100 characters) and email; fields left out stay as they are. Answers the updated profile.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *updatePlayerInput) (*struct{ Body ProfileBody }, error) {
		p, err := a.Players.UpdateProfile(ctx, playerFrom(ctx), players.ProfileUpdate{Name: in.Body.Name, Email: in.Body.Email})
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body ProfileBody }{Body: toProfileBody(p)}, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-cookie-consent",
		Method:      http.MethodPost,
		Path:        "/player/cookie-consent",
		Summary:     "Record cookie consent",
		Description: "Records that the player consented to cookies; repeating it keeps the first time.",
		Tags:        tags,
	}), func(ctx context.Context, _ *struct{}) (*messageOutput, error) {
		p, err := a.Players.SetCookieConsent(ctx, playerFrom(ctx))
		if err != nil {
			return nil, playersError(ctx, err)
		}
		out := &messageOutput{}
		out.Body.Message, out.Body.CookieConsentAt = "cookie consent recorded", p.CookieConsentAt
		return out, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-delete-me",
		Method:      http.MethodDelete,
		Path:        "/player/me",
		Summary:     "Delete the player's account",
		Description: "Soft delete: the account is disabled (`isBlocked: true`), not removed. Its tokens, OTP login and federated login then get 403 PLAYER_DISABLED; its coins stay in the ledger.",
		Tags:        tags,
	}), func(ctx context.Context, _ *struct{}) (*messageOutput, error) {
		p, err := a.Players.Disable(ctx, playerFrom(ctx))
		if err != nil {
			return nil, playersError(ctx, err)
		}
		out := &messageOutput{}
		out.Body.Message, out.Body.IsBlocked = "account disabled", &p.IsBlocked
		return out, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-game",
		Method:      http.MethodGet,
		Path:        "/player/game",
		Summary:     "The game that owns the key",
		Description: "The game of the API key, the environment of the host called, the deployment currency and the game's coins.",
		Tags:        tags,
	}), func(ctx context.Context, _ *struct{}) (*struct{ Body PlayerGameBody }, error) {
		c := callerFrom(ctx)
		g, err := a.Studios.GetGame(ctx, c.GameID)
		if err != nil {
			return nil, studioError(ctx, err)
		}
		list, err := a.Coins.ListCoins(ctx, c.GameID)
		if err != nil {
			return nil, coinsError(ctx, err)
		}
		body := PlayerGameBody{ID: g.ID, StudioID: g.StudioID, Name: g.Name, StoreURL: g.StoreURL,
			Environment: string(c.Environment), Currency: a.Currency, Coins: make([]CoinBody, len(list))}
		for i, coin := range list {
			body.Coins[i] = toCoinBody(coin)
		}
		return &struct{ Body PlayerGameBody }{Body: body}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-store-settings",
		Method:      http.MethodGet,
		Path:        "/player/store-settings",
		Summary:     "The store settings",
		Description: "The game's store switches, as the operator set them (defaults: rewards on, gcommerce off, landing page rewards).",
		Tags:        tags,
	}), func(ctx context.Context, _ *struct{}) (*struct{ Body StoreSettingsBody }, error) {
		s, err := a.Players.StoreSettings(ctx, callerFrom(ctx).GameID)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body StoreSettingsBody }{Body: toSettingsBody(s)}, nil
	})

	huma.Register(a.api, a.apiKeyOperation(huma.Operation{
		OperationID: "player-store-theme-config",
		Method:      http.MethodGet,
		Path:        "/player/store-theme-config",
		Summary:     "The store theme and configuration",
		Description: "The JSON object the operator set as the game's store theme; `{}` when none was set.",
		Tags:        tags,
	}), func(ctx context.Context, _ *struct{}) (*themeOutput, error) {
		s, err := a.Players.StoreSettings(ctx, callerFrom(ctx).GameID)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		out := &themeOutput{Body: map[string]any{}}
		if err := json.Unmarshal(s.Theme, &out.Body); err != nil {
			return nil, internal(ctx, err)
		}
		return out, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-gcommerce-profile",
		Method:      http.MethodGet,
		Path:        "/player/gcommerce/profile/details",
		Summary:     "The player's shopping profile",
		Description: "Name, email, contact phone, profile picture and delivery addresses of the token's player.",
		Tags:        tags,
	}), func(ctx context.Context, _ *gameUUIDHeader) (*struct{ Body GcommerceProfileBody }, error) {
		return &struct{ Body GcommerceProfileBody }{Body: toGcommerceBody(playerFrom(ctx))}, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID: "player-gcommerce-profile-update",
		Method:      http.MethodPatch,
		Path:        "/player/gcommerce/profile",
		Summary:     "Update the player's shopping profile",
		Description: "Changes the fields sent; `addresses` replaces the list. Delivery is in India only: each address needs line1, city, an Indian state or union territory, and a 6-digit PIN code; at most 10 addresses, at most one default. 400 VALIDATION_FAILED otherwise.",
		Tags:        tags,
		Errors:      []int{http.StatusBadRequest},
	}), func(ctx context.Context, in *gcommercePatchInput) (*struct{ Body GcommerceProfileBody }, error) {
		u := players.ProfileUpdate{Name: in.Body.Name, Email: in.Body.Email, ContactPhone: in.Body.Phone}
		if in.Body.Addresses != nil {
			list := make([]players.Address, len(*in.Body.Addresses))
			for i, ad := range *in.Body.Addresses {
				list[i] = players.Address{Name: ad.Name, Line1: ad.Line1, Line2: ad.Line2, Landmark: ad.Landmark, City: ad.City,
					State: ad.State, PinCode: ad.PinCode, Phone: ad.Phone, Default: ad.IsDefault}
			}
			u.Addresses = &list
		}
		p, err := a.Players.UpdateProfile(ctx, playerFrom(ctx), u)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body GcommerceProfileBody }{Body: toGcommerceBody(p)}, nil
	})

	huma.Register(a.api, a.playerOperation(huma.Operation{
		OperationID:   "player-gcommerce-profile-upload",
		Method:        http.MethodPost,
		Path:          "/player/gcommerce/profile/upload",
		Summary:       "Upload a profile picture",
		Description:   "Multipart form with field `file`: a PNG, JPEG or WebP image (checked by its content, not its name), at most 5 MB. Answers the profile with the picture's address, served by GET /files/{name}.",
		Tags:          tags,
		DefaultStatus: http.StatusCreated,
		MaxBodyBytes:  players.MaxPictureBytes + 64<<10,
		Errors:        []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge},
	}), func(ctx context.Context, in *uploadInput) (*struct{ Body GcommerceProfileBody }, error) {
		f := in.RawBody.Data().File
		data, err := io.ReadAll(io.LimitReader(f, players.MaxPictureBytes+1))
		if err != nil {
			return nil, validationError(ctx, "body.file", "could not read the file", nil)
		}
		p, err := a.Players.UploadPicture(ctx, playerFrom(ctx), data)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body GcommerceProfileBody }{Body: toGcommerceBody(p)}, nil
	})

	huma.Register(a.api, huma.Operation{
		OperationID: "file",
		Method:      http.MethodGet,
		Path:        "/files/{name}",
		Summary:     "An uploaded file",
		Description: "Serves an uploaded profile picture by the name in its profilePictureUrl. Names are unguessable; no authentication, host-agnostic.",
		Tags:        tags,
		Errors:      []int{http.StatusNotFound},
	}, func(ctx context.Context, in *fileInput) (*fileOutput, error) {
		rc, ct, err := a.Players.OpenFile(ctx, in.Name)
		if err != nil {
			return nil, playersError(ctx, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(rc)
		if err != nil {
			return nil, internal(ctx, err)
		}
		return &fileOutput{ContentType: ct, CacheControl: "public, max-age=86400, immutable", Body: data}, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID: "admin-set-store-settings",
		Method:      http.MethodPut,
		Path:        "/admin/v1/games/{gameId}/store-settings",
		Summary:     "Set a game's store settings",
		Description: "Changes the fields sent; the rest stay. Players read them at GET /player/store-settings. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *storeSettingsInput) (*struct{ Body StoreSettingsBody }, error) {
		gameID := uuid.MustParse(in.GameID)
		if _, err := a.Studios.GetGame(ctx, gameID); err != nil {
			return nil, studioError(ctx, err)
		}
		s, err := a.Players.ChangeStoreSettings(ctx, gameID, players.SettingsChange{
			RewardsEnabled: in.Body.RewardsEnabled, GcommerceEnabled: in.Body.GcommerceEnabled, DefaultLandingPage: in.Body.DefaultLandingPage})
		if err != nil {
			return nil, playersError(ctx, err)
		}
		return &struct{ Body StoreSettingsBody }{Body: toSettingsBody(s)}, nil
	})

	huma.Register(a.api, a.operatorOperation(huma.Operation{
		OperationID: "admin-set-store-theme",
		Method:      http.MethodPut,
		Path:        "/admin/v1/games/{gameId}/store-theme",
		Summary:     "Set a game's store theme",
		Description: "Replaces the theme and configuration object players read at GET /player/store-theme-config. 404 GAME_NOT_FOUND.",
		Errors:      []int{http.StatusBadRequest, http.StatusNotFound},
	}), func(ctx context.Context, in *themeInput) (*themeOutput, error) {
		gameID := uuid.MustParse(in.GameID)
		if _, err := a.Studios.GetGame(ctx, gameID); err != nil {
			return nil, studioError(ctx, err)
		}
		raw, err := json.Marshal(in.Body)
		if err != nil {
			return nil, validationError(ctx, "body", "theme must be a JSON object", nil)
		}
		if _, err := a.Players.ChangeStoreSettings(ctx, gameID, players.SettingsChange{Theme: raw}); err != nil {
			return nil, playersError(ctx, err)
		}
		return &themeOutput{Body: in.Body}, nil
	})
}
