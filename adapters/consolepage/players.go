package consolepage

import "github.com/go-chi/chi/v5"

// playerRoutes mounts the pages of players (look up, block, unblock) under
// /console/games/{gameID}/{env}. Placeholder until H6b's pages land.
func (h *Handler) playerRoutes(r chi.Router) {}
