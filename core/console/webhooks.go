package console

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/rewardsco/rewards/core/members"
	"github.com/rewardsco/rewards/core/studio"
	"github.com/rewardsco/rewards/core/webhooks"
)

// A studio's webhooks are configured per environment for all its games, as /studio-webhooks does
// with a game's key: every method takes a game of the principal's studio (reached as the
// console reaches everything) and acts on the studio's configurations of env. Another studio's
// configuration or delivery is webhooks.ErrConfigNotFound or webhooks.ErrDeliveryNotFound.

// scope checks that p has need, that gameID is a game of p's studio and env valid, and returns
// the studio's webhook scope of env, the game, and ctx naming p as the actor.
func (s *Service) scope(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	need members.Role) (context.Context, webhooks.Scope, studio.Game, error) {
	var g studio.Game
	var err error
	if need == developer {
		ctx, g, err = s.change(ctx, p, gameID)
	} else {
		g, err = s.read(ctx, p, gameID)
	}
	if err == nil {
		err = validEnv(env)
	}
	return ctx, webhooks.Scope{StudioID: p.StudioID, Environment: env}, g, err
}

// WebhookConfigs returns the studio's webhook configurations of env (secrets masked).
func (s *Service) WebhookConfigs(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) ([]webhooks.Config, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, viewer)
	if err != nil {
		return nil, err
	}
	return s.d.Webhooks.List(ctx, sc)
}

// WebhookConfig returns one webhook configuration of the studio's env.
func (s *Service) WebhookConfig(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, configID uuid.UUID) (webhooks.Config, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, viewer)
	if err != nil {
		return webhooks.Config{}, err
	}
	return s.d.Webhooks.Get(ctx, sc, configID)
}

// ConfigureWebhook creates the configuration of ch.URL in the studio's env, or updates the one
// that has it; created reports which. Only a created configuration carries its secret in
// plaintext (Secret), shown once.
func (s *Service) ConfigureWebhook(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	ch webhooks.Change) (c webhooks.Config, created bool, err error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return webhooks.Config{}, false, err
	}
	return s.d.Webhooks.Configure(ctx, sc, ch)
}

// UpdateWebhook changes the fields ch sets of a configuration.
func (s *Service) UpdateWebhook(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	configID uuid.UUID, ch webhooks.Change) (webhooks.Config, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return webhooks.Config{}, err
	}
	return s.d.Webhooks.Update(ctx, sc, configID, ch)
}

// DeleteWebhook removes a configuration and its delivery records.
func (s *Service) DeleteWebhook(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, configID uuid.UUID) error {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return err
	}
	return s.d.Webhooks.Delete(ctx, sc, configID)
}

// WebhookDeliveries lists the studio's deliveries of env that f selects, newest first, and
// their total.
func (s *Service) WebhookDeliveries(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	f webhooks.DeliveryFilter) ([]webhooks.Delivery, int64, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, viewer)
	if err != nil {
		return nil, 0, err
	}
	return s.d.Webhooks.Deliveries(ctx, sc, f)
}

// WebhookStats summarises the studio's deliveries of env.
func (s *Service) WebhookStats(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment) (webhooks.Stats, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, viewer)
	if err != nil {
		return webhooks.Stats{}, err
	}
	return s.d.Webhooks.Stats(ctx, sc)
}

// ResendDelivery sends a delivery's event again as a new delivery and returns its id.
func (s *Service) ResendDelivery(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment, deliveryID uuid.UUID) (uuid.UUID, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return uuid.Nil, err
	}
	return s.d.Webhooks.Resend(ctx, sc, deliveryID)
}

// RecoverWebhook sends again, once, every FAILED delivery of a configuration whose event
// happened at or after since, and returns how many it queued.
func (s *Service) RecoverWebhook(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	configID uuid.UUID, since time.Time) (int, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return 0, err
	}
	return s.d.Webhooks.Recover(ctx, sc, configID, since)
}

// RotateWebhookSecret gives a configuration a new signing secret, in plaintext in the returned
// configuration's Secret only here; the old one keeps signing for grace (0 to
// webhooks.MaxGrace).
func (s *Service) RotateWebhookSecret(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	configID uuid.UUID, grace time.Duration) (webhooks.Config, error) {
	ctx, sc, _, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return webhooks.Config{}, err
	}
	return s.d.Webhooks.RotateSecret(ctx, sc, configID, grace)
}

// SendTestWebhook sends one synthetic coin event of eventType (COINS_CREDITED, COINS_DEBITED or
// COINS_REFUNDED) for the game to a configuration at once, and returns how the receiver
// answered. It changes no balance, delivery or stat.
func (s *Service) SendTestWebhook(ctx context.Context, p members.Principal, gameID uuid.UUID, env studio.Environment,
	configID uuid.UUID, eventType string) (webhooks.TestResult, error) {
	ctx, sc, g, err := s.scope(ctx, p, gameID, env, developer)
	if err != nil {
		return webhooks.TestResult{}, err
	}
	c := studio.Caller{GameID: g.ID, StudioID: g.StudioID, GameName: g.Name, Environment: env}
	return s.d.Webhooks.SendTest(ctx, sc, c, configID, eventType)
}
