package e2e

import (
	"context"
	"net/http"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/httpapi/contract"
)

// httpClient is the client of the calls to the service: every answer it receives is checked
// against the OpenAPI documents the service serves (contract.Checker), so that an answer the
// documents do not describe fails the suite that received it. Redirects are not followed.
func (s *stack) httpClient() *http.Client {
	s.clientOnce.Do(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		checker, err := contract.Fetch(ctx, &http.Client{Timeout: 30 * time.Second}, s.svc.BaseURL, adminToken)
		require.NoError(s.t, err, "the served OpenAPI documents")
		s.client = &http.Client{
			Transport:     checker.Transport(s.t, nil),
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
			Timeout:       30 * time.Second,
		}
	})
	return s.client
}
