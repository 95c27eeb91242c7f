package storepage

import (
	"net/http"
)

// routes lists every page. POSTs pass the cross-origin check first (headers.go).
func (p *Pages) routes() http.Handler {
	mux := http.NewServeMux()
	get := func(pattern string, h http.HandlerFunc) { mux.HandleFunc("GET "+Path+pattern, h) }
	get("/enter", p.enter)
	get("/{$}", p.home)
	get("", p.home)
	get("/rewards", p.list)
	get("/search", p.search)
	get("/rewards/{id}", p.reward)
	get("/orders", p.orders)
	get("/orders/{id}", p.order)
	get("/profile", p.profile)
	get("/signed-out", p.signedOut)
	get("/theme/{file}", p.theme)
	mux.Handle("GET "+Path+"/assets/{name}", assets)
	post := http.NewCrossOriginProtection()
	post.SetDenyHandler(http.HandlerFunc(p.crossOrigin))
	mux.Handle("POST "+Path+"/rewards/{id}/purchase", post.Handler(http.HandlerFunc(p.buy)))
	mux.Handle("POST "+Path+"/profile", post.Handler(http.HandlerFunc(p.saveProfile)))
	mux.HandleFunc(Path+"/", p.notFound)
	return mux
}
