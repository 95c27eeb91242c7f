package app_test

import (
	"bytes"
	"net/http"
	"net/http/cookiejar"

	"github.com/stretchr/testify/require"
)

// requireDemoStore opens the banner's store address as a browser would (following redirects,
// keeping cookies) and finds the demo player's store with its coins.
func (r *localRun) requireDemoStore() {
	r.t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(r.t, err)
	client := &http.Client{Jar: jar}
	res, err := client.Get(r.base + "/store/demo")
	require.NoError(r.t, err)
	defer res.Body.Close()
	require.Equal(r.t, http.StatusOK, res.StatusCode)
	require.Equal(r.t, "/store/rewards", res.Request.URL.Path, "the store's landing page")
	var body bytes.Buffer
	_, err = body.ReadFrom(res.Body)
	require.NoError(r.t, err)
	require.Contains(r.t, body.String(), `<strong id="balance">5,000</strong> Demo Coins`)
	require.Contains(r.t, body.String(), `<ul class="cards">`+"\n<li>", "the demo catalogue is listed")
}
