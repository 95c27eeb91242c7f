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
