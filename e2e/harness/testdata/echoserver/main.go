// Command echoserver is a tiny HTTP server used by the harness tests to check
// GoImage and StartContainer: GET /healthz answers "ok", GET /whoami answers
// the process's uid and gid as JSON, GET /env?name=X answers $X.
package main

import (
	"encoding/json"
	"log"
	"net/http"
	"os"
)

func main() {
	addr := ":8080"
	if v := os.Getenv("ADDR"); v != "" {
		addr = v
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok\n"))
	})
	mux.HandleFunc("GET /whoami", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]int{"uid": os.Getuid(), "gid": os.Getgid()})
	})
	mux.HandleFunc("GET /env", func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(os.Getenv(r.URL.Query().Get("name"))))
	})
	log.Printf("echoserver listening on %s", addr)
	log.Fatal(http.ListenAndServe(addr, mux))
}
