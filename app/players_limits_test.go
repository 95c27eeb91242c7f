package app_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rewardsco/rewards/adapters/filestore"
	"github.com/rewardsco/rewards/adapters/httpapi"
	"github.com/rewardsco/rewards/adapters/jobs"
	"github.com/rewardsco/rewards/adapters/postgres"
	"github.com/rewardsco/rewards/adapters/postgres/pgtest"
	"github.com/rewardsco/rewards/adapters/sms"
	"github.com/rewardsco/rewards/app"
)

// logBuffer is a log destination the server's goroutines may write to at once.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// limitsAPI is the whole server as setup builds it, with the settings a limit test changes and
// everything logged (at debug level) into logs.
type limitsAPI struct {
	*testAPI
	uploads string
	logs    *logBuffer
}

func setupLimits(t *testing.T, change func(*app.External)) *limitsAPI {
	t.Helper()
	pool := pgtest.Pool(t)
	sender := &recordingSender{sent: map[string][]string{}}
	// Whole seconds, so that times read back from PostgreSQL (microseconds) are exact.
	clk := &clock{now: time.Now().Truncate(time.Second)}
	logs := &logBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	uploads := t.TempDir()
	ext := app.External{
		SecretKey:      "test-secret-key-test-secret-key-0123456789",
		PlayerTokenTTL: time.Hour,
		OTPSender:      sender,
		Files:          filestore.Disk{Dir: uploads},
		Now:            clk.Now,
		Log:            log,
	}
	if change != nil {
		change(&ext)
	}
	mods, err := app.NewModules(postgres.NewDB(pool), jobs.New(pool, jobs.Options{}), ext)
	require.NoError(t, err)
	handler := app.NewServer(mods, app.ServerConfig{
		Log:        log,
		Currency:   "INR",
		Hosts:      httpapi.Hosts{Live: []string{"live.localhost"}, Dev: []string{"localhost", "127.0.0.1"}},
		AdminToken: adminToken,
		Ready:      func(ctx context.Context) error { return pool.Ping(ctx) },
	}).Handler()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	return &limitsAPI{testAPI: &testAPI{t: t, srv: srv, sms: sender, clock: clk}, uploads: uploads, logs: logs}
}

func (a *limitsAPI) requestOTP(g game, phone string) response {
	a.t.Helper()
	return a.asGame(g, "POST", "/player/request-otp", `{"phone":"`+phone+`"}`)
}

// The per-phone limits do not stop SMS pumping across many numbers: a game and environment
// sends at most REWARDS_OTP_SENDS_PER_HOUR codes an hour, however many requests race for them.
func TestOTPGameCapOverHTTP(t *testing.T) {
	t.Parallel()
	const limit, racers = 5, 40
	a := setupLimits(t, func(e *app.External) { e.OTPSendsPerHour = limit })
	g := a.newGame("Pumped")

	statuses := make([]response, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			statuses[i] = a.requestOTP(g, fmt.Sprintf("+1415%07d", i))
		}()
	}
	close(start)
	wg.Wait()
	sent := 0
	for _, r := range statuses {
		if r.Status == 200 {
			sent++
			continue
		}
		requireError(t, r, 429, "OTP_GAME_RATE_LIMITED")
		require.Equal(t, "3600", r.Header.Get("Retry-After"))
	}
	require.Equal(t, limit, sent, "exactly the cap is sent, whatever the race")

	other := a.newGame("Bystander")
	require.Equal(t, 200, a.requestOTP(other, "+14155550100").Status, "another game has its own cap")
	a.clock.Advance(time.Hour)
	r := a.requestOTP(g, "+14155550100")
	require.Equal(t, 200, r.Status, "the hour has passed: %s", r.Raw)
}

// 100 failed checks in a row lock the phone for 24 hours: its codes are refused and none is sent.
func TestOTPFailureRunLocksPhoneOverHTTP(t *testing.T) {
	t.Parallel()
	a := setupLimits(t, nil)
	g := a.newGame("Guesser")
	phone := "+919876500000"
	login := func(code string) response {
		return a.asGame(g, "POST", "/player/login", `{"phone":"`+phone+`","otp":"`+code+`"}`)
	}
	wrong := func(code string) string {
		if code == "000000" {
			return "000001"
		}
		return "000000"
	}
	// fail requests a code and makes n wrong tries of it.
	fail := func(n int) string {
		t.Helper()
		r := a.requestOTP(g, phone)
		require.Equal(t, 200, r.Status, string(r.Raw))
		code := a.sms.lastCode(t, phone)
		for range n {
			requireError(t, login(wrong(code)), 401, "OTP_INVALID")
		}
		a.clock.Advance(31 * time.Second)
		return code
	}
	// Ten failed checks an hour, the per-phone limit: 99 in all.
	for range 9 {
		fail(5)
		fail(5)
		a.clock.Advance(time.Hour)
	}
	fail(5)
	fail(4)
	a.clock.Advance(time.Hour)
	code := fail(1) // the 100th failed check in a row, with a code that stays alive
	r := login(code)
	requireError(t, r, 429, "OTP_RATE_LIMITED")
	require.Equal(t, "86369", r.Header.Get("Retry-After"), "24 h from the 100th failure, 31 s ago")
	a.clock.Advance(time.Minute)
	r = a.requestOTP(g, phone)
	requireError(t, r, 429, "OTP_RATE_LIMITED")
	require.Equal(t, "86309", r.Header.Get("Retry-After"))

	a.clock.Advance(24*time.Hour - 91*time.Second)
	require.Equal(t, 200, a.requestOTP(g, phone).Status)
	r = login(a.sms.lastCode(t, phone))
	require.Equal(t, 200, r.Status, string(r.Raw))
}

// The SMS gateway's error body names the phone: it must not reach the log.
func TestSMSGatewayErrorIsLoggedWithoutThePhone(t *testing.T) {
	t.Parallel()
	const phone = "+14155550199"
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"code":21211,"message":"The 'To' number %s is not a valid phone number.","more_info":"https://www.twilio.com/docs/errors/21211","status":400}`, r.PostForm.Get("To"))
	}))
	t.Cleanup(gateway.Close)
	a := setupLimits(t, func(e *app.External) {
		e.OTPSender = sms.NewTwilio(gateway.URL, "AC0123456789", "auth-token", "+15005550006")
	})
	g := a.newGame("Gateway")

	r := a.requestOTP(g, phone)
	requireError(t, r, 502, "SMS_SEND_FAILED")
	logs := a.logs.String()
	require.Contains(t, logs, "SMS_SEND_FAILED", "the failure is logged")
	require.Contains(t, logs, "400", "with the gateway's status")
	require.NotContains(t, logs, strings.TrimPrefix(phone, "+"), "but never the phone")
}

// upload posts a profile picture; chunked hides the body's length from the server.
func (a *limitsAPI) upload(g game, bearer string, data []byte, chunked bool) response {
	a.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, err := mw.CreateFormFile("file", "pic.png")
	require.NoError(a.t, err)
	_, err = fw.Write(data)
	require.NoError(a.t, err)
	require.NoError(a.t, mw.Close())
	var body io.Reader = &buf
	if chunked {
		body = io.MultiReader(&buf)
	}
	req, err := http.NewRequest("POST", a.srv.URL+"/player/gcommerce/profile/upload", body)
	require.NoError(a.t, err)
	req.Host = "localhost"
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("x-api-key", g.testKey)
	req.Header.Set("Authorization", bearer)
	return a.send(req)
}

func TestNewPictureDeletesThePreviousOne(t *testing.T) {
	t.Parallel()
	a := setupLimits(t, nil)
	g := a.newGame("Pictures")
	bearer := "Bearer " + a.federatedToken(g, "p-pic")
	png := append([]byte("\x89PNG\r\n\x1a\n"), bytes.Repeat([]byte{7}, 100)...)

	first := a.upload(g, bearer, png, false)
	require.Equal(t, 201, first.Status, string(first.Raw))
	second := a.upload(g, bearer, png, false)
	require.Equal(t, 201, second.Status, string(second.Raw))
	firstURL, secondURL := first.Body["profilePictureUrl"].(string), second.Body["profilePictureUrl"].(string)
	require.NotEqual(t, firstURL, secondURL)

	requireError(t, a.do("GET", firstURL, "", nil, ""), 404, "FILE_NOT_FOUND")
	require.Equal(t, 200, a.do("GET", secondURL, "", nil, "").Status)
	entries, err := os.ReadDir(a.uploads)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	name := strings.TrimPrefix(secondURL, "/files/")
	require.ElementsMatch(t, []string{name, name + ".meta"}, names, "only the current picture is kept")
}

// A body over the upload's limit is 413, whether its length is declared or not; a file over
// 5 MB inside a body within the limit stays 400 (TestProfilesAndPictures).
func TestPictureBodyOverTheLimitIs413(t *testing.T) {
	t.Parallel()
	a := setupLimits(t, nil)
	g := a.newGame("Large")
	bearer := "Bearer " + a.federatedToken(g, "p-large")
	jpeg := func(n int) []byte { return append([]byte("\xFF\xD8\xFF"), make([]byte, n)...) }

	for _, tc := range []struct {
		name    string
		size    int
		chunked bool
	}{
		{"declared length over the upload's limit", 6 << 20, false},
		{"chunked over the upload's limit", 6 << 20, true},
		{"chunked over the server's limit", 9 << 20, true},
	} {
		r := a.upload(g, bearer, jpeg(tc.size), tc.chunked)
		requireError(t, r, 413, "BODY_TOO_LARGE")
		require.Contains(t, r.Body["message"], "5 MB", tc.name)
	}
	r := a.upload(g, bearer, jpeg(1<<20), true)
	require.Equal(t, 201, r.Status, "a chunked body within the limit is read: %s", r.Raw)
}

func TestOTPSendsPerHourSetting(t *testing.T) {
	t.Parallel()
	c, err := app.LoadConfig(env(nil))
	require.NoError(t, err)
	require.Equal(t, 1000, c.OTPSendsPerHour)
	c, err = app.LoadConfig(env(map[string]string{"REWARDS_OTP_SENDS_PER_HOUR": "250"}))
	require.NoError(t, err)
	require.Equal(t, 250, c.OTPSendsPerHour)
	for _, bad := range []string{"0", "-1", "many", "1.5"} {
		_, err := app.LoadConfig(env(map[string]string{"REWARDS_OTP_SENDS_PER_HOUR": bad}))
		require.ErrorContains(t, err, "REWARDS_OTP_SENDS_PER_HOUR", bad)
	}
}
