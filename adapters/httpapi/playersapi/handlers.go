package playersapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/core/players"
	"github.com/rewardsco/rewards/core/studio"
)

// handlers serves the players module's operations: each decodes its input, makes one core
// call and encodes the answer.
type handlers struct{ svc *players.Service }

func (h handlers) createWithUUID(ctx context.Context, in *uuidBody) (*createdPlayerOutput, error) {
	p, err := h.svc.CreateWithUUID(ctx, httpapi.CallerFrom(ctx), in.Body.UUID)
	return httpapi.Reply(ctx, p, err, toCreatedPlayerBody)
}

func (h handlers) createBulk(ctx context.Context, in *bulkInput) (*bulkCreatedOutput, error) {
	return h.createMany(ctx, in.Body.UUIDs)
}

// createBatch is createBulk under the getting-started guide's path and field name.
func (h handlers) createBatch(ctx context.Context, in *batchInput) (*bulkCreatedOutput, error) {
	return h.createMany(ctx, in.Body.UUID)
}

func (h handlers) createMany(ctx context.Context, uuids []string) (*bulkCreatedOutput, error) {
	list, err := h.svc.CreateBulk(ctx, httpapi.CallerFrom(ctx), uuids)
	return httpapi.Reply(ctx, list, err, toBulkCreatedBody)
}

func (h handlers) federatedLogin(ctx context.Context, in *uuidBody) (*tokenOutput, error) {
	t, err := h.svc.FederatedLogin(ctx, httpapi.CallerFrom(ctx), in.Body.UUID)
	return httpapi.Reply(ctx, t, err, toTokenBody)
}

// requestOTP serves both request-otp and resend-otp: the rules are the same.
func (h handlers) requestOTP(ctx context.Context, in *otpInput) (*otpOutput, error) {
	sent, err := h.svc.RequestOTP(ctx, httpapi.CallerFrom(ctx), in.Body.Phone)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return toOTPOutput(sent), nil
}

func (h handlers) login(ctx context.Context, in *loginInput) (*tokenOutput, error) {
	t, err := h.svc.Login(ctx, httpapi.CallerFrom(ctx), in.Body.Phone, in.Body.OTP)
	return httpapi.Reply(ctx, t, err, toTokenBody)
}

func (h handlers) profile(ctx context.Context, _ *struct{}) (*profileOutput, error) {
	return &profileOutput{Body: toProfileBody(httpapi.PlayerFrom(ctx))}, nil
}

func (h handlers) updateProfile(ctx context.Context, in *updatePlayerInput) (*profileOutput, error) {
	p, err := h.svc.UpdateProfile(ctx, httpapi.PlayerFrom(ctx), players.ProfileUpdate{Name: in.Body.Name, Email: in.Body.Email})
	return httpapi.Reply(ctx, p, err, toProfileBody)
}

func (h handlers) cookieConsent(ctx context.Context, _ *struct{}) (*messageOutput, error) {
	p, err := h.svc.SetCookieConsent(ctx, httpapi.PlayerFrom(ctx))
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &messageOutput{}
	out.Body.Message, out.Body.CookieConsentAt = "cookie consent recorded", p.CookieConsentAt
	return out, nil
}

func (h handlers) deleteMe(ctx context.Context, _ *struct{}) (*messageOutput, error) {
	p, err := h.svc.Disable(ctx, httpapi.PlayerFrom(ctx))
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out := &messageOutput{}
	out.Body.Message, out.Body.IsBlocked = "account disabled", &p.IsBlocked
	return out, nil
}

func (h handlers) storeSettings(ctx context.Context, _ *struct{}) (*storeSettingsOutput, error) {
	s, err := h.svc.StoreSettings(ctx, httpapi.CallerFrom(ctx).GameID)
	return httpapi.Reply(ctx, s, err, toSettingsBody)
}

func (h handlers) storeThemeConfig(ctx context.Context, _ *struct{}) (*themeOutput, error) {
	s, err := h.svc.StoreSettings(ctx, httpapi.CallerFrom(ctx).GameID)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	out, err := toThemeOutput(s)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return out, nil
}

func (h handlers) gcommerceProfile(ctx context.Context, _ *httpapi.GameUUIDHeader) (*gcommerceProfileOutput, error) {
	return &gcommerceProfileOutput{Body: toGcommerceBody(httpapi.PlayerFrom(ctx))}, nil
}

func (h handlers) updateGcommerceProfile(ctx context.Context, in *gcommercePatchInput) (*gcommerceProfileOutput, error) {
	p, err := h.svc.UpdateProfile(ctx, httpapi.PlayerFrom(ctx), toGcommerceUpdate(in))
	return httpapi.Reply(ctx, p, err, toGcommerceBody)
}

func (h handlers) uploadPicture(ctx context.Context, in *uploadInput) (*gcommerceProfileOutput, error) {
	files := in.RawBody.File["file"]
	if len(files) != 1 {
		return nil, httpapi.ValidationError(ctx, "body.file", "send exactly one file in the part named file", nil)
	}
	f, err := files[0].Open()
	if err != nil {
		return nil, httpapi.ValidationError(ctx, "body.file", "could not read the file", nil)
	}
	defer f.Close()
	// One byte over the limit is enough for the core to refuse the file as too large.
	data, err := io.ReadAll(io.LimitReader(f, players.MaxPictureBytes+1))
	if err != nil {
		return nil, httpapi.ValidationError(ctx, "body.file", "could not read the file", nil)
	}
	p, cleanupErr, err := h.svc.UploadPicture(ctx, httpapi.PlayerFrom(ctx), data)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	if cleanupErr != nil {
		// The upload stands; the old file is left behind.
		httpapi.Logger(ctx).WarnContext(ctx, "previous profile picture not deleted", "player", p.ID, "err", cleanupErr)
	}
	return &gcommerceProfileOutput{Body: toGcommerceBody(p)}, nil
}

func (h handlers) file(ctx context.Context, in *fileInput) (*fileOutput, error) {
	rc, contentType, err := h.svc.OpenFile(ctx, in.Name)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(rc)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &fileOutput{CacheControl: "public, max-age=86400, immutable", Body: func(hctx huma.Context) {
		hctx.SetHeader("Content-Type", contentType)
		hctx.SetStatus(http.StatusOK)
		_, _ = hctx.BodyWriter().Write(data)
	}}, nil
}

func (h handlers) setStoreSettings(ctx context.Context, in *storeSettingsInput) (*storeSettingsOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	s, err := h.svc.ChangeStoreSettings(ctx, gameID, toSettingsChange(in))
	return httpapi.Reply(ctx, s, err, toSettingsBody)
}

func (h handlers) setStoreTheme(ctx context.Context, in *themeInput) (*themeOutput, error) {
	gameID, err := httpapi.ParseID(in.GameID, studio.ErrGameNotFound)
	if err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	raw, err := json.Marshal(in.Body)
	if err != nil {
		return nil, httpapi.ValidationError(ctx, "body", "theme must be a JSON object", nil)
	}
	if _, err := h.svc.ChangeStoreSettings(ctx, gameID, players.SettingsChange{Theme: raw}); err != nil {
		return nil, httpapi.ErrorFrom(ctx, err)
	}
	return &themeOutput{Body: in.Body}, nil
}
