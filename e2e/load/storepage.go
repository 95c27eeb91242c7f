package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// The player's store (adapters/storepage): a signed-in list page, beside rewards-list.
const (
	storePageScenario = "store-page"
	goalStorePageP99  = 20 * time.Millisecond
	// goalStorePageBytes bounds a page's HTML, stylesheets and script (images aside).
	goalStorePageBytes = 60 << 10
)

// storePageWeight is the weight of the list page the last store-page run measured: its HTML,
// and the stylesheets and script it loads.
var storePageWeight struct {
	html, assets int
	measured     bool
}

// storePage GETs /store/rewards?sort=&page= with a store session's cookie, each client its own
// player's session (opened through POST /player/store-session and its link), on the seeded
// catalogue: the page of 20 in any of GET /rewards' orders, page 1 to storePages.
func storePage(ctx context.Context, env *environment, clients int) (result, error) {
	if _, err := env.storeFixture(ctx); err != nil {
		return result{}, err
	}
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	noRedirect := &http.Client{Transport: env.client.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	cookies := make([]string, clients)
	for i, tok := range tokens {
		var link struct {
			URL string `json:"url"`
		}
		h := map[string]string{"x-api-key": env.testKey, "Authorization": "Bearer " + tok}
		if err := env.call(ctx, "/player/store-session", h, map[string]any{}, http.StatusCreated, &link); err != nil {
			return result{}, err
		}
		_, query, _ := strings.Cut(link.URL, "/store/enter?")
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.baseURL+"/store/enter?"+query, nil)
		if err != nil {
			return result{}, err
		}
		resp, err := noRedirect.Do(req)
		if err != nil {
			return result{}, err
		}
		resp.Body.Close()
		for _, c := range resp.Cookies() {
			if c.Name == "rewards_store" {
				cookies[i] = c.Name + "=" + c.Value
			}
		}
		if cookies[i] == "" {
			return result{}, fmt.Errorf("the store link answered %d without a session cookie", resp.StatusCode)
		}
	}
	if err := measureStorePageWeight(ctx, env, cookies[0]); err != nil {
		return result{}, err
	}
	sorts := []string{"DEFAULT", "NEWEST", "TRENDING", "PRICE_LOW_HIGH", "PRICE_HIGH_LOW", "DISCOUNT"}
	r, err := driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		u := env.baseURL + "/store/rewards?sort=" + sorts[rand.IntN(len(sorts))] + "&page=" + strconv.Itoa(1+rand.IntN(storePages))
		return storePageGet(ctx, env, u, cookies[client])
	})
	if err != nil {
		return r, err
	}
	r.store = &storeStats{}
	return r, nil
}

// storePageGet GETs a store page with a session cookie; a page without rewards is an error.
func storePageGet(ctx context.Context, env *environment, u, cookie string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Cookie", cookie)
	resp, err := env.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	buf := answerBuffers.Get().(*bytes.Buffer)
	defer answerBuffers.Put(buf)
	buf.Reset()
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		return 0, nil, err
	}
	body := buf.Bytes()
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, bytes.Clone(body[:min(len(body), 300)]), nil
	}
	if !bytes.Contains(body, []byte(`<ul class="cards">`+"\n<li>")) {
		return 0, nil, fmt.Errorf("GET %s: a page without rewards: %.200s", u, body)
	}
	return http.StatusCreated, nil, nil // the loop's mark of success
}

var storeAssetPattern = regexp.MustCompile(`(?:href|src)="(/store/(?:assets|theme)/[^"]+)"`)

// measureStorePageWeight weighs the first list page: its HTML and what it loads (stylesheets,
// script).
func measureStorePageWeight(ctx context.Context, env *environment, cookie string) error {
	get := func(path string) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, env.baseURL+path, nil)
		if err != nil {
			return nil, err
		}
		req.Header.Set("Cookie", cookie)
		resp, err := env.client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("GET %s: %d", path, resp.StatusCode)
		}
		return io.ReadAll(resp.Body)
	}
	html, err := get("/store/rewards")
	if err != nil {
		return err
	}
	storePageWeight.html, storePageWeight.assets, storePageWeight.measured = len(html), 0, true
	for _, m := range storeAssetPattern.FindAllSubmatch(html, -1) {
		path, err := url.PathUnescape(string(m[1]))
		if err != nil {
			return err
		}
		body, err := get(path)
		if err != nil {
			return err
		}
		storePageWeight.assets += len(body)
	}
	return nil
}

// reportStorePage prints the store page's goals: beside rewards-list's throughput, its p99 and
// its weight.
func reportStorePage(w io.Writer, results []result) {
	var page, list *result
	for i, r := range results {
		if r.clients != goalClients {
			continue
		}
		switch r.scenario {
		case storePageScenario:
			page = &results[i]
		case listScenario:
			list = &results[i]
		}
	}
	if page == nil {
		return
	}
	fmt.Fprintln(w)
	if list != nil && list.throughput > 0 {
		x := page.throughput / list.throughput
		fmt.Fprintf(w, "Goal at %d clients: %s ≥ %.0f%% of %s's throughput: %.0f%% (%.0f/s of %.0f/s) — %s\n",
			goalClients, storePageScenario, 100*goalStoreRatio, listScenario, 100*x, page.throughput, list.throughput, verdict(x >= goalStoreRatio))
	} else {
		fmt.Fprintf(w, "Goal not evaluated: it needs %s and %s at %d clients in the run.\n", storePageScenario, listScenario, goalClients)
	}
	fmt.Fprintf(w, "Goal at %d clients: %s p99 < %s: %s — %s\n", goalClients, storePageScenario, ms(goalStorePageP99), ms(page.p99), verdict(page.p99 < goalStorePageP99))
	if wt := storePageWeight; wt.measured {
		total := wt.html + wt.assets
		fmt.Fprintf(w, "Goal: a store page's HTML + CSS + script < %d kB: %.1f kB (HTML %.1f kB, stylesheets and script %.1f kB) — %s\n",
			goalStorePageBytes>>10, float64(total)/1024, float64(wt.html)/1024, float64(wt.assets)/1024, verdict(total < goalStorePageBytes))
	}
}
