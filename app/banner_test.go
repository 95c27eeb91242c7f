package app

import (
	"bytes"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// In production the operator token is never printed; in development it is (a newcomer needs it).
func TestBannerShowsTheOperatorTokenOnlyInDevelopment(t *testing.T) {
	t.Parallel()
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	token := "rat_" + strings.Repeat("s", 40)
	var dev, prod bytes.Buffer
	printBanner(&dev, Config{Mode: Development, AdminToken: token}, addr, nil)
	printBanner(&prod, Config{Mode: Production, AdminToken: token, DatabaseURL: "postgres://db/rewards"}, addr, nil)
	require.Contains(t, dev.String(), token)
	require.NotContains(t, prod.String(), token, "the production banner must not print the operator token")
	require.NotContains(t, prod.String(), token[:12])
}

// The demo banner says how to reach the test environment's sandbox and gives the live partner
// secret that enabling partner mode issued.
func TestBannerShowsTheMoneyWorlds(t *testing.T) {
	t.Parallel()
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	var out bytes.Buffer
	printBanner(&out, Config{Mode: Development, AdminToken: "rat_x", Currency: "INR"}, addr,
		&DemoCredentials{TestKey: "rk_test_k", LiveKey: "rk_live_k", LivePartnerSecret: "rcs_secret"})
	require.Contains(t, out.String(), "rcs_secret")
	require.Contains(t, out.String(), "SANDBOX- codes")
	require.Contains(t, out.String(), "never by the live provider")
}
