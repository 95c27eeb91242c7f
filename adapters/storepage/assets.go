package storepage

import (
	"embed"
	"net/http"

	"github.com/rewardsco/rewards/adapters/pageassets"
)

//go:embed static
var static embed.FS

// assets are the embedded files under content-hashed names ("store.3f2a1b9c4d5e.css").
var assets = pageassets.Load(static, "static", Path+"/assets/")

// serveAsset serves an embedded file for a year: its name changes with its content.
func serveAsset(w http.ResponseWriter, r *http.Request) { assets.Serve(w, r, r.PathValue("name")) }
