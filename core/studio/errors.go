package studio

import (
	"github.com/rewardsco/rewards/core/errs"
)

var (
	// ErrStudioNotFound means no studio has the given id.
	ErrStudioNotFound = errs.New(errs.NotFound, "STUDIO_NOT_FOUND", "studio not found")
	// ErrGameNotFound means no game has the given id.
	ErrGameNotFound = errs.New(errs.NotFound, "GAME_NOT_FOUND", "game not found")
	// ErrKeyMissing means the request carried no x-api-key header.
	ErrKeyMissing = errs.New(errs.Unauthorized, "API_KEY_MISSING", "missing API key: send the game's key in the x-api-key header")
	// ErrKeyUnknown means the key is not one this service issued.
	ErrKeyUnknown = errs.New(errs.Unauthorized, "API_KEY_UNKNOWN", "unknown API key")
	// ErrKeyRevoked means the key was valid once but has been rotated away.
	ErrKeyRevoked = errs.New(errs.Unauthorized, "API_KEY_REVOKED", "API key has been revoked by a rotation; use the game's current key")
	// ErrKeyWrongEnvironment means a valid key was used on the host of the other environment;
	// WrongEnvironment makes the variant that names the key's environment.
	ErrKeyWrongEnvironment = errs.New(errs.Unauthorized, "API_KEY_WRONG_ENVIRONMENT", "this API key belongs to the other environment")
)

// ErrServerSecretRequired means the game takes coin movements only from its servers
// (serverOnlyCoinMovements) and the request did not carry the game's current server secret of
// the environment in x-api-secret.
var ErrServerSecretRequired = errs.New(errs.Forbidden, "SERVER_SECRET_REQUIRED",
	"this game takes coin movements only from its servers: send the game's server secret in the x-api-secret header")

var errInvalidEnv = errs.Invalidf("environment must be live or test")

// WrongEnvironment is ErrKeyWrongEnvironment for a key of keyEnv.
func WrongEnvironment(keyEnv Environment) *errs.Error {
	host := "live"
	if keyEnv == Test {
		host = "development"
	}
	return ErrKeyWrongEnvironment.Withf("this API key belongs to the %s environment; call the %s host with it", keyEnv, host)
}
