package playersapi

import (
	"encoding/json"
	"mime/multipart"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/uuid"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/players"
)

// The names of the unexported input and output types below are part of the OpenAPI document:
// an anonymous body is named after its parent type (uuidBody → UuidRequest, httpapi's schemaName), so renaming
// one changes a schema name.

// TokenBody is a login result.
type TokenBody struct {
	AccessToken string `json:"access_token" doc:"The player token (JWT) for Authorization: Bearer"`
	TokenType   string `json:"token_type" doc:"Always Bearer" example:"Bearer"`
	ExpiresIn   int64  `json:"expires_in" doc:"Seconds until the token expires" example:"604800"`
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

// StoreSettingsBody is the store settings record.
type StoreSettingsBody struct {
	RewardsEnabled     bool   `json:"rewardsEnabled" doc:"Whether the rewards store is on"`
	GcommerceEnabled   bool   `json:"gcommerceEnabled" doc:"Whether goods commerce is on"`
	DefaultLandingPage string `json:"defaultLandingPage" doc:"Page the store opens on" example:"rewards"`
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

type updatePlayerInput struct {
	Body struct {
		Name  *string `json:"name,omitempty" maxLength:"100" doc:"Display name"`
		Email *string `json:"email,omitempty" maxLength:"254" doc:"Email address (empty clears it)"`
	}
}

// gcommercePatchInput and uploadInput document x-game-uuid with their own wording (no
// "(403 PLAYER_MISMATCH)"), as the published document does, so they do not embed
// httpapi.GameUUIDHeader.
type gcommercePatchInput struct {
	GameUUID string `header:"X-Game-Uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player"`
	Body     struct {
		Name      *string        `json:"name,omitempty" maxLength:"100" doc:"Name"`
		Email     *string        `json:"email,omitempty" maxLength:"254" doc:"Email address"`
		Phone     *string        `json:"phone,omitempty" doc:"Contact phone, E.164 (empty clears it)"`
		Addresses *[]AddressBody `json:"addresses,omitempty" maxItems:"10" doc:"Replaces the delivery addresses"`
	}
}

// uploadInput is a multipart form read whole (its body is declared by uploadRequestBody):
// huma.MultipartFormFiles would declare the file's part with an encoding of its own, which
// generators such as ogen refuse, and check its media type by the part's header, which says
// nothing of the content the core checks.
type uploadInput struct {
	GameUUID string `header:"X-Game-Uuid" maxLength:"128" doc:"Optional: the player's studio uuid; must match the token's player"`
	RawBody  multipart.Form
}

// uploadRequestBody is the upload's body in the document: one part, file, binary. A new one
// each time: Huma completes it at registration.
func uploadRequestBody() *huma.RequestBody {
	return &huma.RequestBody{Required: true, Content: map[string]*huma.MediaType{
		"multipart/form-data": {Schema: &huma.Schema{
			Type:     "object",
			Required: []string{"file"},
			Properties: map[string]*huma.Schema{
				"file": {Type: "string", Format: "binary", Description: "PNG, JPEG or WebP, at most 5 MB"},
			},
		}},
	}}
}

type fileInput struct {
	Name string `path:"name" pattern:"^[A-Za-z0-9._-]{1,200}$" doc:"File name from a profilePictureUrl"`
}

// fileOutput writes the file with its media type from the body function: a Content-Type
// field would be declared as a response header, which OpenAPI ignores (the 200's content
// lists the media types).
type fileOutput struct {
	CacheControl string `header:"Cache-Control"`
	Body         func(huma.Context)
}

type messageOutput struct {
	Body struct {
		Message         string     `json:"message" doc:"What happened"`
		IsBlocked       *bool      `json:"isBlocked,omitempty" doc:"Set by DELETE /player/me"`
		CookieConsentAt *time.Time `json:"cookieConsentAt,omitempty" doc:"Set by POST /player/cookie-consent"`
	}
}

type storeSettingsInput struct {
	GameID string `path:"gameId" doc:"Game id"`
	Body   struct {
		RewardsEnabled     *bool   `json:"rewardsEnabled,omitempty" doc:"Whether the rewards store is on"`
		GcommerceEnabled   *bool   `json:"gcommerceEnabled,omitempty" doc:"Whether goods commerce is on"`
		DefaultLandingPage *string `json:"defaultLandingPage,omitempty" enum:"rewards,gcommerce,home" doc:"Page the store opens on"`
	}
}

type themeInput struct {
	GameID string         `path:"gameId" doc:"Game id"`
	Body   map[string]any `doc:"The theme and configuration object the store renders with; replaces the previous one"`
}

type themeOutput = httpapi.Output[map[string]any]

type tokenOutput = httpapi.Output[TokenBody]

type createdPlayerOutput = httpapi.Output[CreatedPlayerBody]

type bulkCreatedOutput = httpapi.Output[BulkCreatedBody]

type profileOutput = httpapi.Output[ProfileBody]

type gcommerceProfileOutput = httpapi.Output[GcommerceProfileBody]

type storeSettingsOutput = httpapi.Output[StoreSettingsBody]

// Converters between core values and the transport types.

func toTokenBody(t players.Token) TokenBody {
	return TokenBody{AccessToken: t.AccessToken, TokenType: "Bearer", ExpiresIn: int64(t.ExpiresIn / time.Second)}
}

func toCreatedPlayerBody(p players.Created) CreatedPlayerBody {
	return CreatedPlayerBody{ID: p.ID, UUID: p.StudioRef(), IsBlocked: p.IsBlocked, Created: p.Created}
}

func toBulkPlayerBody(p players.Created) BulkPlayerBody {
	return BulkPlayerBody{ID: p.ID, UUID: p.StudioRef(), Created: p.Created}
}

func toBulkCreatedBody(list []players.Created) BulkCreatedBody {
	out := BulkCreatedBody{Players: httpapi.Map(list, toBulkPlayerBody)}
	for _, p := range list {
		if p.Created {
			out.CreatedCount++
		} else {
			out.ExistingCount++
		}
	}
	return out
}

func toOTPOutput(sent players.OTPSent) *otpOutput {
	out := &otpOutput{}
	out.Body.Message = "OTP sent"
	out.Body.ExpiresIn, out.Body.ResendAfter = int64(sent.ExpiresIn/time.Second), int64(sent.ResendAfter/time.Second)
	return out
}

func toProfileBody(p players.Player) ProfileBody {
	return ProfileBody{ID: p.ID, UUID: p.UUID, Phone: p.Phone, Name: p.Name, Email: p.Email, IsBlocked: p.IsBlocked,
		CookieConsent: p.CookieConsentAt != nil, CookieConsentAt: p.CookieConsentAt, CreatedAt: p.CreatedAt}
}

func toAddressBody(a players.Address) AddressBody {
	return AddressBody{Name: a.Name, Line1: a.Line1, Line2: a.Line2, Landmark: a.Landmark,
		City: a.City, State: a.State, PinCode: a.PinCode, Phone: a.Phone, IsDefault: a.Default}
}

func toAddress(a AddressBody) players.Address {
	return players.Address{Name: a.Name, Line1: a.Line1, Line2: a.Line2, Landmark: a.Landmark, City: a.City,
		State: a.State, PinCode: a.PinCode, Phone: a.Phone, Default: a.IsDefault}
}

func toGcommerceBody(p players.Player) GcommerceProfileBody {
	b := GcommerceProfileBody{ID: p.ID, UUID: p.UUID, Name: p.Name, Email: p.Email, Phone: p.ContactPhone,
		Addresses: httpapi.Map(p.Addresses, toAddressBody)}
	if b.Phone == "" && p.Phone != nil {
		b.Phone = *p.Phone
	}
	if p.PictureKey != "" {
		u := "/files/" + p.PictureKey
		b.ProfilePictureURL = &u
	}
	return b
}

func toGcommerceUpdate(in *gcommercePatchInput) players.ProfileUpdate {
	u := players.ProfileUpdate{Name: in.Body.Name, Email: in.Body.Email, ContactPhone: in.Body.Phone}
	if in.Body.Addresses != nil {
		list := httpapi.Map(*in.Body.Addresses, toAddress)
		u.Addresses = &list
	}
	return u
}

func toSettingsBody(s players.StoreSettings) StoreSettingsBody {
	return StoreSettingsBody{RewardsEnabled: s.RewardsEnabled, GcommerceEnabled: s.GcommerceEnabled, DefaultLandingPage: s.DefaultLandingPage}
}

func toSettingsChange(in *storeSettingsInput) players.SettingsChange {
	return players.SettingsChange{RewardsEnabled: in.Body.RewardsEnabled, GcommerceEnabled: in.Body.GcommerceEnabled,
		DefaultLandingPage: in.Body.DefaultLandingPage}
}

// toThemeOutput decodes the stored theme, a JSON object ({} when none was set).
func toThemeOutput(s players.StoreSettings) (*themeOutput, error) {
	out := &themeOutput{Body: map[string]any{}}
	if err := json.Unmarshal(s.Theme, &out.Body); err != nil {
		return nil, err
	}
	return out, nil
}
