// Package playersapi serves the players module over HTTP: player creation, OTP and federated
// login, profiles and pictures, and the store settings players read and the operator sets.
package playersapi

import (
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/players"
)

// Tag groups the players operations on the docs page.
const Tag = "Player"

// TagDescription describes Tag on the docs page.
const TagDescription = "Players: creation, OTP and federated login, profiles, store settings. Player endpoints need a bearer token as well as the key."

// otpRules documents both request-otp and resend-otp.
const otpRules = "Sends a 6-digit code by SMS, valid 5 minutes (a new code replaces the previous one). At most one send per 30 s (429 OTP_RESEND_TOO_SOON) and 5 sends per phone per hour (429 OTP_RATE_LIMITED); none to a phone locked by 100 failed checks in a row (429 OTP_RATE_LIMITED until the 24 h lock ends). Across all its phones a game sends at most REWARDS_OTP_SENDS_PER_HOUR codes (default 1,000) per environment in any hour, against SMS pumping: beyond that 429 OTP_GAME_RATE_LIMITED. Every 429 carries Retry-After (seconds). 403 PLAYER_DISABLED for a deleted account; 502 SMS_SEND_FAILED when the SMS gateway refuses."

// Register adds the players operations to s.
func Register(s *httpapi.Server, svc *players.Service) {
	s.AddTag(Tag, TagDescription)
	h := handlers{svc: svc}
	tags := []string{Tag}
	// The order of these calls is the order of the operations in the OpenAPI document.
	registerCreation(s, h, tags)
	registerLogin(s, h, tags)
	registerProfile(s, h, tags)
	registerStoreSettings(s, h, tags)
	registerShoppingProfile(s, h, tags)
	registerFile(s, h, tags)
	registerOperatorStore(s, h)
}

// registerCreation adds the operations that create players by the studio's uuid.
func registerCreation(s *httpapi.Server, h handlers, tags []string) {
	ops := httpapi.Operations{API: s.API, Auth: s.CoinMovementWith(s.APIKey), Tags: tags}
	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("player-create-with-uuid", http.MethodPost, "/player/create-with-uuid", "Create a player with the studio's uuid",
		"Creates the player, or returns the existing one with that uuid (`created` tells which). A blocked player is returned as found with `isBlocked: true`. uuid is 1 to 128 characters, unique per game and environment. "+serverOnlyNote,
		http.StatusBadRequest)), h.createWithUUID)

	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("player-create-with-bulk-uuids", http.MethodPost, "/player/create-with-bulk-uuids", "Create players in bulk",
		"Creates a player for each uuid that has none (1 to 1,000 uuids; repeats count once), all in one transaction. Answers every player with whether this call created it. "+serverOnlyNote,
		http.StatusBadRequest)), h.createBulk)

	httpapi.Register(ops, httpapi.WithStatus(http.StatusCreated, httpapi.Op("player-create-with-uuid-batch", http.MethodPost, "/player/create-with-uuid-batch", "Create players in bulk (alias)",
		"The getting-started guide's alias of /player/create-with-bulk-uuids, with the body field `uuid` (an array). Same rules and answer. "+serverOnlyNote,
		http.StatusBadRequest)), h.createBatch)
}

// registerLogin adds federated and OTP login.
func registerLogin(s *httpapi.Server, h handlers, tags []string) {
	ops := httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}
	httpapi.Register(httpapi.Operations{API: s.API, Auth: s.CoinMovementWith(s.APIKey), Tags: tags}, httpapi.Op("player-login-federated", http.MethodPost, "/player/login/federatedByStudio", "Log a player in by the studio's uuid",
		"Issues a player token for the player the studio created with this uuid. 404 PLAYER_NOT_FOUND when there is none; 403 PLAYER_DISABLED when it deleted its account. The token works only with this game's key of this environment, for REWARDS_PLAYER_TOKEN_TTL (default 168h). "+serverOnlyNote,
		http.StatusBadRequest, http.StatusForbidden, http.StatusNotFound), h.federatedLogin)

	httpapi.Register(ops, httpapi.Op("player-request-otp", http.MethodPost, "/player/request-otp", "Request a login code",
		otpRules,
		http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests, http.StatusBadGateway), h.requestOTP)

	httpapi.Register(ops, httpapi.Op("player-resend-otp", http.MethodPost, "/player/resend-otp", "Resend a login code",
		otpRules,
		http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests, http.StatusBadGateway), h.requestOTP)

	httpapi.Register(ops, httpapi.Op("player-login", http.MethodPost, "/player/login", "Log a player in with a code",
		"Checks the latest code sent to the phone and issues a player token; the first successful login of a phone creates its player. 401 OTP_INVALID (wrong code or none requested), OTP_EXPIRED, OTP_USED (a code works once), OTP_ATTEMPTS_EXCEEDED (5 wrong tries kill a code); 429 OTP_RATE_LIMITED after 10 failed checks per phone per hour, and for 24 h after 100 failed checks in a row (a successful login ends the run; the 100th check itself answers OTP_INVALID, and while locked the phone gets no codes either), with Retry-After (seconds); 403 PLAYER_DISABLED.",
		http.StatusBadRequest, http.StatusForbidden, http.StatusTooManyRequests), h.login)
}

// registerProfile adds the player's own profile, consent and account deletion.
func registerProfile(s *httpapi.Server, h handlers, tags []string) {
	ops := httpapi.Operations{API: s.API, Auth: s.Player, Tags: tags}
	httpapi.Register(ops, httpapi.Op("player-profile", http.MethodGet, "/player/profile", "The player's profile",
		"The profile of the token's player."), h.profile)

	httpapi.Register(ops, httpapi.Op("player-update", http.MethodPut, "/player", "Update the player's profile",
		"Changes name (at most 100 characters) and email; fields left out stay as they are. Answers the updated profile.",
		http.StatusBadRequest), h.updateProfile)

	httpapi.Register(ops, httpapi.Op("player-cookie-consent", http.MethodPost, "/player/cookie-consent", "Record cookie consent",
		"Records that the player consented to cookies; repeating it keeps the first time."), h.cookieConsent)

	httpapi.Register(ops, httpapi.Op("player-delete-me", http.MethodDelete, "/player/me", "Delete the player's account",
		"Soft delete: the account is disabled (`isBlocked: true`), not removed. Its tokens, OTP login and federated login then get 403 PLAYER_DISABLED; its coins stay in the ledger."), h.deleteMe)
}

// registerStoreSettings adds the store settings and theme players read.
func registerStoreSettings(s *httpapi.Server, h handlers, tags []string) {
	ops := httpapi.Operations{API: s.API, Auth: s.APIKey, Tags: tags}
	httpapi.Register(ops, httpapi.Op("player-store-settings", http.MethodGet, "/player/store-settings", "The store settings",
		"The game's store switches, as the operator set them (defaults: rewards on, gcommerce off, landing page rewards)."), h.storeSettings)

	httpapi.Register(ops, httpapi.Op("player-store-theme-config", http.MethodGet, "/player/store-theme-config", "The store theme and configuration",
		"The JSON object the operator set as the game's store theme; `{}` when none was set."), h.storeThemeConfig)
}

// registerShoppingProfile adds the gcommerce profile and its picture upload.
func registerShoppingProfile(s *httpapi.Server, h handlers, tags []string) {
	ops := httpapi.Operations{API: s.API, Auth: s.Player, Tags: tags}
	httpapi.Register(ops, httpapi.Op("player-gcommerce-profile", http.MethodGet, "/player/gcommerce/profile/details", "The player's shopping profile",
		"Name, email, contact phone, profile picture and delivery addresses of the token's player."), h.gcommerceProfile)

	httpapi.Register(ops, httpapi.Op("player-gcommerce-profile-update", http.MethodPatch, "/player/gcommerce/profile", "Update the player's shopping profile",
		"Changes the fields sent; `addresses` replaces the list. Delivery is in India only: each address needs line1, city, an Indian state or union territory, and a 6-digit PIN code; at most 10 addresses, at most one default. 400 VALIDATION_FAILED otherwise.",
		http.StatusBadRequest), h.updateGcommerceProfile)

	op := httpapi.Op("player-gcommerce-profile-upload", http.MethodPost, "/player/gcommerce/profile/upload", "Upload a profile picture",
		"Multipart form with field `file`: a PNG, JPEG or WebP image (checked by its content, not its name), at most 5 MB. Answers the profile with the picture's address, served by GET /files/{name}; the previous picture is deleted, so its address stops working (404 FILE_NOT_FOUND). A body over 5 MB + 64 KiB (5,308,416 bytes), with its length declared or chunked, gets 413 BODY_TOO_LARGE; a file over 5 MB within that, or not a PNG, JPEG or WebP, gets 400 VALIDATION_FAILED.",
		http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	op.DefaultStatus = http.StatusCreated
	op.RequestBody = uploadRequestBody()
	op.MaxBodyBytes = maxUploadBytes
	op.Middlewares = huma.Middlewares{limitUpload(s.API)}
	httpapi.Register(ops, op, h.uploadPicture)
}

// registerFile adds the unauthenticated download of uploaded pictures.
func registerFile(s *httpapi.Server, h handlers, tags []string) {
	op := httpapi.Op("file", http.MethodGet, "/files/{name}", "An uploaded file",
		"Serves an uploaded profile picture by the name in its profilePictureUrl, as PNG, JPEG or WebP. Names are unguessable; no authentication, host-agnostic.",
		http.StatusNotFound)
	op.Responses = map[string]*huma.Response{"200": {
		Description: "The picture, in the media type it was uploaded as.",
		Content: map[string]*huma.MediaType{
			"image/png":  {Schema: httpapi.BinarySchema("A PNG image")},
			"image/jpeg": {Schema: httpapi.BinarySchema("A JPEG image")},
			"image/webp": {Schema: httpapi.BinarySchema("A WebP image")},
		},
	}}
	httpapi.Register(httpapi.Operations{API: s.API, Tags: tags}, op, h.file)
}

// registerOperatorStore adds the operator's store settings and theme.
func registerOperatorStore(s *httpapi.Server, h handlers) {
	ops := httpapi.Operations{API: s.OperatorAPI, Auth: s.Operator}
	httpapi.Register(ops, httpapi.Op("admin-set-store-settings", http.MethodPut, "/admin/v1/games/{gameId}/store-settings", "Set a game's store settings",
		"Changes the fields sent; the rest stay. Players read them at GET /player/store-settings. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.setStoreSettings)

	httpapi.Register(ops, httpapi.Op("admin-set-store-theme", http.MethodPut, "/admin/v1/games/{gameId}/store-theme", "Set a game's store theme",
		"Replaces the theme and configuration object players read at GET /player/store-theme-config. 404 GAME_NOT_FOUND.",
		http.StatusBadRequest, http.StatusNotFound), h.setStoreTheme)
}

// serverOnlyNote says how serverOnlyCoinMovements guards the operations that obtain or move a
// player's value without the player.
const serverOnlyNote = "The API key ships inside game clients: with the game's `serverOnlyCoinMovements` setting on " +
	"(operator API, default off), this call also needs header `x-api-secret` with the game's server secret of the environment, " +
	"else 403 SERVER_SECRET_REQUIRED, like distribute and deduct, because it lets its caller act as any player " +
	"(log in as them and spend their coins). OTP login, where the player proves the phone, does not need it."
