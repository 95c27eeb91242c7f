package consolepage

import "github.com/go-chi/chi/v5"

// storeRoutes mounts the pages of store settings and theme, with a preview under
// /console/games/{gameID}/{env}. Placeholder until H6b's pages land.
func (h *Handler) storeRoutes(r chi.Router) {}
