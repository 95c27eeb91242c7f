package studio

import (
	"errors"
	"fmt"
)

var (
	// ErrStudioNotFound means no studio has the given id.
	ErrStudioNotFound = errors.New("studio not found")
	// ErrGameNotFound means no game has the given id.
	ErrGameNotFound = errors.New("game not found")
	// ErrKeyMissing means the request carried no x-api-key header.
	ErrKeyMissing = errors.New("missing API key: send the game's key in the x-api-key header")
	// ErrKeyUnknown means the key is not one this service issued.
	ErrKeyUnknown = errors.New("unknown API key")
	// ErrKeyRevoked means the key was valid once but has been rotated away.
	ErrKeyRevoked = errors.New("API key has been revoked by a rotation; use the game's current key")
	// ErrInvalid wraps a rule broken by the caller's input.
	ErrInvalid = errors.New("invalid input")
)

// WrongEnvironmentError means a valid key was used on the host of the other environment.
type WrongEnvironmentError struct {
	// KeyEnvironment is the environment the key belongs to.
	KeyEnvironment Environment
}

func (e *WrongEnvironmentError) Error() string {
	host := "live"
	if e.KeyEnvironment == Test {
		host = "development"
	}
	return fmt.Sprintf("this API key belongs to the %s environment; call the %s host with it", e.KeyEnvironment, host)
}
