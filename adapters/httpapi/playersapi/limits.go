package playersapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humachi"

	"github.com/rewardsco/rewards/core/players"
)

// maxUploadBytes is the largest body a picture upload may have: the 5 MB file and room for the
// multipart framing around it.
const maxUploadBytes = players.MaxPictureBytes + 64<<10

// limitUpload answers 413 BODY_TOO_LARGE for an upload whose body is over maxUploadBytes. Huma
// applies an operation's MaxBodyBytes to JSON bodies only, and the multipart parser's failure on
// the server-wide cap becomes a 400, so the limit is enforced here, before the form is parsed:
// a declared length at once, a body of unknown length (chunked) by reading it up to the limit.
// A file over 5 MB inside a body within the limit is the core's 400 VALIDATION_FAILED.
func limitUpload(api huma.API) func(huma.Context, func(huma.Context)) {
	return func(hctx huma.Context, next func(huma.Context)) {
		r, _ := humachi.Unwrap(hctx)
		tooLarge := func() {
			_ = huma.WriteErr(api, hctx, http.StatusRequestEntityTooLarge,
				fmt.Sprintf("request body is larger than %d bytes: a profile picture is at most 5 MB", maxUploadBytes))
		}
		if r.ContentLength > maxUploadBytes {
			tooLarge()
			return
		}
		if r.ContentLength < 0 {
			data, err := io.ReadAll(io.LimitReader(r.Body, maxUploadBytes+1))
			var capped *http.MaxBytesError // the server-wide cap, when it is the lower
			switch {
			case errors.As(err, &capped) || len(data) > maxUploadBytes:
				tooLarge()
				return
			case err != nil:
				_ = huma.WriteErr(api, hctx, http.StatusBadRequest, "could not read the request body")
				return
			}
			r.Body, r.ContentLength = io.NopCloser(bytes.NewReader(data)), int64(len(data))
		}
		next(hctx)
	}
}
