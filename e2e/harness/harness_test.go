package harness_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	tcexec "github.com/testcontainers/testcontainers-go/exec"

	"github.com/rewardsco/rewards/e2e/harness"
)

func TestPostgresStopStart(t *testing.T) {
	if testing.Short() {
		t.Skip("needs docker; skipped with -short")
	}
	ctx := context.Background()
	nw := harness.NewNetwork(ctx, t)
	pg := harness.StartPostgres(ctx, t, nw)

	if want := "postgres://rewards:rewards@postgres:5432/rewards?sslmode=disable"; pg.InternalDSN != want {
		t.Errorf("InternalDSN = %q, want %q", pg.InternalDSN, want)
	}

	db := openDB(t, pg.HostDSN(ctx))
	var one int
	if err := db.QueryRowContext(ctx, "select 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("select 1: got %d, %v", one, err)
	}
	var user, dbname string
	if err := db.QueryRowContext(ctx, "select current_user, current_database()").Scan(&user, &dbname); err != nil {
		t.Fatal(err)
	}
	if user != "rewards" || dbname != "rewards" {
		t.Errorf("connected as %s to %s, want rewards to rewards", user, dbname)
	}
	if _, err := db.ExecContext(ctx, "create table kept (v text); insert into kept values ('before stop')"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	// InternalDSN works on the network (here from inside the container
	// itself, through the network alias).
	code, out, err := pg.Testcontainer().Exec(ctx, []string{"psql", pg.InternalDSN, "-Atc", "select count(*) from kept"}, tcexec.Multiplexed())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(out)
	if code != 0 || strings.TrimSpace(string(b)) != "1" {
		t.Fatalf("psql %s: exit %d: %s", pg.InternalDSN, code, b)
	}

	stopDSN := pg.HostDSN(ctx)
	pg.Stop(ctx)

	// While stopped, connecting fails.
	down := openDB(t, stopDSN)
	pingCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = down.PingContext(pingCtx)
	cancel()
	if err == nil {
		t.Fatal("ping succeeded while PostgreSQL is stopped")
	}
	t.Logf("while stopped, ping fails as expected: %v", err)
	down.Close()

	pg.Start(ctx)
	db = openDB(t, pg.HostDSN(ctx)) // the host port may have changed
	var v string
	if err := db.QueryRowContext(ctx, "select v from kept").Scan(&v); err != nil {
		t.Fatalf("row written before the stop: %v", err)
	}
	if v != "before stop" {
		t.Fatalf("got %q, want %q", v, "before stop")
	}
}

func TestGoImageContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs docker; skipped with -short")
	}
	ctx := context.Background()
	image, err := harness.GoImage(ctx, "rewards-e2e-echoserver", "./e2e/harness/testdata/echoserver")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(image, "rewards-e2e-echoserver:") || len(image) != len("rewards-e2e-echoserver:")+12 {
		t.Errorf("image = %q, want rewards-e2e-echoserver:<12 hex>", image)
	}
	// GoImage keeps its result for the process; build again for real.
	again, err := harness.BuildGoImage(ctx, "rewards-e2e-echoserver", "./e2e/harness/testdata/echoserver")
	if err != nil {
		t.Fatal(err)
	}
	if again != image {
		t.Errorf("second build = %q, want the same tag %q (reproducible build)", again, image)
	}
	if memo, err := harness.GoImage(ctx, "rewards-e2e-echoserver", "./e2e/harness/testdata/echoserver"); err != nil || memo != image {
		t.Errorf("second GoImage = %q, %v; want %q", memo, err, image)
	}

	nw := harness.NewNetwork(ctx, t)
	c := harness.StartContainer(ctx, t, harness.ContainerRequestOptions{
		Image:        image,
		Env:          map[string]string{"GREETING": "hello"},
		Network:      nw,
		Aliases:      []string{"echo"},
		ExposedPort:  "8080/tcp",
		WaitHTTPPath: "/healthz",
	})

	if body := get(t, c.BaseURL+"/healthz"); body != "ok\n" {
		t.Errorf("/healthz = %q, want ok", body)
	}
	if body := get(t, c.BaseURL+"/env?name=GREETING"); body != "hello" {
		t.Errorf("GREETING = %q, want hello", body)
	}
	var who struct{ UID, GID int }
	if err := json.Unmarshal([]byte(get(t, c.BaseURL+"/whoami")), &who); err != nil {
		t.Fatal(err)
	}
	if who.UID != harness.NonRootUID || who.GID != harness.NonRootUID {
		t.Errorf("runs as uid %d gid %d, want %d (nonroot)", who.UID, who.GID, harness.NonRootUID)
	}

	c.Kill(ctx)
	c.Start(ctx)
	if body := get(t, c.BaseURL+"/healthz"); body != "ok\n" {
		t.Errorf("/healthz after restart = %q, want ok", body)
	}
	if logs := c.Logs(ctx); !strings.Contains(logs, "echoserver listening on :8080") {
		t.Errorf("logs lack the start line:\n%s", logs)
	}
}

func openDB(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	return string(b)
}
