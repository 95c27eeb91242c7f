package weburl_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/core/weburl"
)

func TestValid(t *testing.T) {
	t.Parallel()
	for _, ok := range []string{"https://example.com", "https://cdn.example.com/a.png?w=300", "https://example.com:8443/x#y"} {
		require.True(t, weburl.Valid(ok, false), ok)
	}
	require.True(t, weburl.Valid("http://localhost:8080/x", true))
	for _, bad := range []string{
		"javascript:alert(document.domain)//https://x", "data:image/png;base64,AAAA", "http://169.254.169.254/latest", "//example.com/x",
		"/relative", "https://user:pass@example.com", "https://", "ftp://example.com", "https://example.com/<script>", "https://exa mple.com",
		"https://example.com/\"onmouseover=x", "https://example.com/" + strings.Repeat("a", 2048), "mailto:a@example.com", "",
	} {
		require.False(t, weburl.Valid(bad, false), bad)
	}
	require.False(t, weburl.Valid("javascript:alert(1)", true))
	require.NoError(t, weburl.Check("logoUrl", "", false, false))
	require.Error(t, weburl.Check("logoUrl", "", false, true))
}
