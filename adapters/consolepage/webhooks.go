package consolepage

import "github.com/go-chi/chi/v5"

// webhookRoutes mounts the pages of webhooks (configurations, deliveries, resend, recover, stats, test) under
// /console/games/{gameID}/{env}. Placeholder until H6b's pages land.
func (h *Handler) webhookRoutes(r chi.Router) {}
