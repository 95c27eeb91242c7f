package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
)

// findChromium returns Debian's chromium, which `go tool task test` installs when missing.
func findChromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium found: run `go tool task deps:chromium` (Debian: apt-get install chromium)")
	return ""
}

// TestDocsPageRendersInABrowser loads /docs from the running container in headless Chromium,
// with no internet, and sees Swagger UI render the operation list.
func TestDocsPageRendersInABrowser(t *testing.T) {
	t.Parallel() // each test runs its own stack
	s := startStack(t, nil)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(findChromium(t)),
		chromedp.NoSandbox, // tests may run as root
		chromedp.Flag("headless", "new"),
		chromedp.WindowSize(1280, 2000),
	)
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	err := chromedp.Do(ctx,
		chromedp.Navigate(s.svc.BaseURL+"/docs/"),
		chromedp.WaitVisible(`.opblock-summary`),
	)
	require.NoError(t, err, "Swagger UI did not render the operation list")
	opCount, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('.opblock').length`))
	require.NoError(t, err)
	title, err := chromedp.Run(ctx, chromedp.Text(`.info .title`))
	require.NoError(t, err)
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(80))
	require.NoError(t, err)
	require.Contains(t, title, "Rewards API")
	require.GreaterOrEqual(t, opCount, 10, "the operation list is rendered")
	path := filepath.Join(t.TempDir(), "docs.jpg")
	require.NoError(t, os.WriteFile(path, shot, 0o644))
	t.Logf("docs page rendered %d operations; screenshot at %s", opCount, path)
}
