package consolepage

import "github.com/go-chi/chi/v5"

// orderRoutes mounts the pages of orders (list, one order) under
// /console/games/{gameID}/{env}. Placeholder until H6b's pages land.
func (h *Handler) orderRoutes(r chi.Router) {}
