// Package behave is the behaviour vocabulary every fake shares (failNext, failStatus, status,
// stallMs): how one request is answered, and the hold of an answer.
package behave

import (
	"context"
	"net/http"
	"time"
)

// Decide applies one request to a fake's behaviour and returns the status to answer instead of
// doing the work (0: answer normally) and how long to hold the answer. failNext counts down:
// the next *failNext requests answer failStatus (default 500); otherwise status, when set,
// answers every request.
func Decide(failNext *int, failStatus, status, stallMs int) (forced int, stall time.Duration) {
	stall = time.Duration(stallMs) * time.Millisecond
	switch {
	case *failNext > 0:
		*failNext--
		if forced = failStatus; forced == 0 {
			forced = http.StatusInternalServerError
		}
	case status != 0:
		forced = status
	}
	return forced, stall
}

// Hold waits d before an answer is written; false means the client went away first.
func Hold(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	select {
	case <-time.After(d):
		return true
	case <-ctx.Done():
		return false
	}
}
