package main

// The touchpoint scenarios: GET /v2/touchpoints/serve with a player token, and
// GET /touchpoints/name/{name}?coinId= of a 50-node tree with two DYNAMIC nodes, over the
// seeded 10,000-reward catalogue (catalogue_seed.go), each beside pgbench running the endpoint's
// statements (read from the sqlc code, catalogue_sql.go), as the rewards store scenarios do.
//
// pgbench-serve and pgbench-tree are the baselines of today's statements (issue 18), not what
// the endpoints cost the service now: they run the statements of the SQL path. Serve: the API
// key, the player, the screen's active placements, the game's store address, touchpoint coin and
// the player's balance, then the placement's configured gift card. The tree: the API key, the
// coin (coinId) and the tree's version, the STATIC nodes' rewards in one statement, then one
// statement per DYNAMIC node. The service sends the placements and the game context in one round
// trip and reads the rewards (configured, STATIC, DYNAMIC) from the catalogue's read model, with
// pool stock cached for catalogue.PoolStockTTL; the rewards statements run only for what the read
// model leaves to PostgreSQL (inactive rewards, products, a failed read). pgbench runs each
// statement in a round trip of its own.

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/core/studio"
)

const (
	serveScenario = "touchpoints-serve"
	serveBaseline = "pgbench-serve"
	treeScenario  = "touchpoints-tree"
	treeBaseline  = "pgbench-tree"

	goalTouchRatio = 0.5
	goalTouchP99   = 20 * time.Millisecond

	touchTreeName = "Home Screen"
)

// touchFixture is what the touchpoint scenarios set up through the operator API, and the
// statements of their requests.
type touchFixture struct {
	store      *storeFixture
	url        string // pgbench's: the service's database, plan_cache_mode auto
	giftCard   string
	serveSteps []sqlStep
	treeSteps  []sqlStep
	nodes      int
	// timings are each statement's EXPLAIN ANALYZE timings, measured once on an idle database.
	timings []string
}

var touch *touchFixture

// The tree read's statement (storeQueryFiles lists the others).
func init() {
	storeQueryFiles["touchpoints.sql.go"] = append(storeQueryFiles["touchpoints.sql.go"], "touchpointsTreeAndCoinByName")
}

func (env *environment) touchFixture(ctx context.Context) (*touchFixture, error) {
	if touch != nil {
		return touch, nil
	}
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := pgx.Connect(ctx, fx.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var gameID, playerID string
	if err := conn.QueryRow(ctx, `SELECT game_id::text FROM coins WHERE id = $1`, env.coinID).Scan(&gameID); err != nil {
		return nil, fmt.Errorf("the benchmark coin: %w", err)
	}
	if err := conn.QueryRow(ctx, `SELECT id::text FROM players WHERE game_id = $1 AND environment = $2 ORDER BY created_at LIMIT 1`,
		gameID, string(studio.Test)).Scan(&playerID); err != nil {
		return nil, fmt.Errorf("a benchmark player: %w", err)
	}
	// Rewards the game's players see: the best gift card for the placement, ten for STATIC nodes.
	visible := `SELECT r.id::text FROM catalogue_rewards r JOIN catalogue_brands b ON b.code = r.brand_code
		LEFT JOIN catalogue_game_rewards gr ON gr.game_id = $1 AND gr.reward_id = r.id
		WHERE r.is_active AND b.is_active AND NOT coalesce(gr.hidden, false) AND r.end_date IS NULL AND r.type = ANY ($2)
		ORDER BY r.x_score DESC, r.id LIMIT $3`
	rows, err := conn.Query(ctx, visible, gameID, []string{"GIFT_CARD"}, 1)
	if err != nil {
		return nil, err
	}
	gift, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(gift) == 0 {
		return nil, fmt.Errorf("a visible gift card: %v", err)
	}
	rows, err = conn.Query(ctx, visible, gameID, []string{"GIFT_CARD", "DIGITAL_CREDIT", "PHYSICAL"}, 10)
	if err != nil {
		return nil, err
	}
	static, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(static) < 10 {
		return nil, fmt.Errorf("ten visible rewards: %v", err)
	}
	var category, brand string
	if err := conn.QueryRow(ctx, `SELECT code FROM catalogue_categories ORDER BY code LIMIT 1`).Scan(&category); err != nil {
		return nil, err
	}
	if err := conn.QueryRow(ctx, `SELECT brand_code FROM catalogue_rewards WHERE is_active GROUP BY brand_code ORDER BY count(*) DESC, brand_code LIMIT 1`).Scan(&brand); err != nil {
		return nil, err
	}

	admin := map[string]string{"Authorization": "Bearer " + env.adminToken}
	// The seeded gift cards are the operator's own (no provider product), so they are pool
	// rewards, and serve offers only what can be bought: the placement's card gets codes.
	codes := make([]map[string]any, 1000)
	for i := range codes {
		codes[i] = map[string]any{"code": fmt.Sprintf("BENCH-%d-%04d", time.Now().UnixNano(), i)}
	}
	if err := env.send(ctx, http.MethodPost, "/admin/v1/catalogue/rewards/"+gift[0]+"/codes", admin,
		map[string]any{"codes": codes}, nil, http.StatusCreated); err != nil {
		return nil, fmt.Errorf("codes for the placement's gift card: %w", err)
	}
	err = env.send(ctx, http.MethodPut, "/admin/v1/games/"+gameID+"/placements/test/6f2b0c1e-0000-4000-8000-000000000001", admin,
		map[string]any{"screen": "home", "type": "gift-card", "item": map[string]any{"rewardId": gift[0], "rule": map[string]any{"sortBy": "DEFAULT"}},
			"asset": map[string]any{"source": "UPLOAD", "imageUrl": "https://cdn.example.com/frame.png", "orientation": "PORTRAIT", "width": 300, "height": 500}},
		nil, http.StatusCreated, http.StatusOK)
	if err != nil {
		return nil, err
	}
	nodes, count := benchTree(static, category, brand)
	if err := env.send(ctx, http.MethodPut, "/admin/v1/games/"+gameID+"/touchpoints/"+url.PathEscape(touchTreeName), admin,
		map[string]any{"nodes": nodes}, nil, http.StatusCreated, http.StatusOK); err != nil {
		return nil, err
	}

	var treeID, treeVersion string
	if err := conn.QueryRow(ctx, `SELECT id::text, updated_at::text FROM touchpoint_trees WHERE game_id = $1 AND name = $2`,
		gameID, touchTreeName).Scan(&treeID, &treeVersion); err != nil {
		return nil, fmt.Errorf("the benchmark tree: %w", err)
	}

	q := fx.queries
	now := str(time.Now().UTC().Format(time.RFC3339Nano))
	key := sqlStep{q["studioFindAPIKey"], sqlArgs{"keyHash": str(`\x` + hex.EncodeToString(studio.HashKey(env.testKey)))}}
	ids := func(list []string) *string {
		b, _ := json.Marshal(list)
		return str("{" + string(b[1:len(b)-1]) + "}")
	}
	t := &touchFixture{store: fx, giftCard: gift[0], nodes: count}
	if t.url, err = planModeURL(env.dbURL, "auto"); err != nil {
		return nil, err
	}
	t.serveSteps = []sqlStep{key,
		{q["playersGet"], sqlArgs{"ID": str(playerID), "GameID": str(gameID), "Environment": str(string(studio.Test))}},
		{q["touchpointsListPlacements"], sqlArgs{"GameID": str(gameID), "Environment": str(string(studio.Test)), "Screen": str("home")}},
		{q["touchpointsGameContext"], sqlArgs{"PlayerID": str(playerID), "GameID": str(gameID)}},
		{q["touchpointsRewards"], sqlArgs{"CoinID": str(env.coinID), "GameID": str(gameID), "Ids": ids(gift[:1])}},
	}
	// The service plans the rule query for its values every time (customPlans) and runs the
	// lookups as cached prepared statements: pgbench connects with plan_cache_mode auto
	// (touchURL) and switches to force_custom_plan around the rule query.
	rule := q["touchpointsBestRewards"]
	rule.planMode = "force_custom_plan"
	best := func(category, brand, ord string) sqlStep {
		return sqlStep{rule, sqlArgs{"CoinID": str(env.coinID), "GameID": str(gameID), "Now": now, "Type": str(""),
			"Category": str(category), "Brand": str(brand), "InStock": str("true"), "Ord": str(ord), "Lim": str("10")}}
	}
	t.treeSteps = []sqlStep{key,
		// The coin and the tree in one statement; the service has the tree's version decoded,
		// so the nodes are not read.
		{q["touchpointsTreeAndCoinByName"], sqlArgs{"KnownID": str(treeID), "KnownUpdatedAt": str(treeVersion), "CoinID": str(env.coinID),
			"GameID": str(gameID), "PlayerID": nil, "Name": str(touchTreeName)}},
		{q["touchpointsRewards"], sqlArgs{"CoinID": str(env.coinID), "GameID": str(gameID), "Ids": ids(static)}},
		best(category, "", "DEFAULT"),
		best("", brand, "NEWEST"),
	}
	for _, set := range []struct {
		name  string
		steps []sqlStep
	}{{"serve", t.serveSteps}, {"tree", t.treeSteps}} {
		for _, st := range set.steps {
			rows, err := st.query(ctx, conn, "EXPLAIN (ANALYZE, BUFFERS) ")
			if err != nil {
				return nil, fmt.Errorf("explain %s: %w", st.q.name, err)
			}
			plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
			if err != nil {
				return nil, fmt.Errorf("explain %s: %w", st.q.name, err)
			}
			if os.Getenv("LOAD_TOUCH_PLANS") != "" {
				fmt.Fprintf(os.Stderr, "--- %s %s\n%s\n", set.name, st.q.name, strings.Join(plan, "\n"))
			}
			t.timings = append(t.timings, fmt.Sprintf("%s %s: %s", set.name, st.q.name, timings(strings.Join(plan, "\n"))))
		}
	}
	touch = t
	return t, nil
}

// benchTree is a 50-node tree: a banner, ten STATIC rewards each with an ASSET child, a section
// with a DYNAMIC node (a category, by x-score), a DYNAMIC root (a brand, newest first) and a
// footer of ASSET nodes.
func benchTree(static []string, category, brand string) ([]map[string]any, int) {
	count := 0
	node := func(m map[string]any) map[string]any {
		count++
		if _, ok := m["title"]; !ok {
			m["title"] = []map[string]any{{"text": fmt.Sprintf("Node %d", count), "fontSize": 14}}
		}
		m["displayOrder"] = count
		m["background"] = map[string]any{"color": "#202040", "opacity": 0.9}
		return m
	}
	assets := func(n int) []map[string]any {
		var out []map[string]any
		for range n {
			out = append(out, node(map[string]any{"dataType": "ASSET", "images": []string{"https://cdn.example.com/a.png"}}))
		}
		return out
	}
	banner := node(map[string]any{"dataType": "ASSET", "layoutHint": "banner"})
	banner["nodes"] = assets(4)
	section := node(map[string]any{"dataType": "ASSET", "layoutHint": "grid"})
	var rewards []map[string]any
	for _, id := range static {
		r := node(map[string]any{"dataType": "STATIC", "rewardId": id, "cta": map[string]any{"text": "Get", "action": "store://reward/" + id}})
		r["nodes"] = assets(1)
		rewards = append(rewards, r)
	}
	section["nodes"] = rewards
	dynSection := node(map[string]any{"dataType": "ASSET", "layoutHint": "carousel"})
	dyn := node(map[string]any{"dataType": "DYNAMIC", "actionPrefix": "store://reward/", "cta": map[string]any{"text": "Open"},
		"query": map[string]any{"type": "rewards", "category": category, "limit": 10}})
	dynSection["nodes"] = append([]map[string]any{dyn}, assets(5)...)
	dynRoot := node(map[string]any{"dataType": "DYNAMIC", "actionPrefix": "store://reward/",
		"query": map[string]any{"type": "rewards", "brand": brand, "sortBy": "NEWEST", "limit": 10}})
	dynRoot["nodes"] = assets(1)
	footer := node(map[string]any{"dataType": "ASSET", "layoutHint": "footer"})
	footer["nodes"] = assets(14)
	return []map[string]any{banner, section, dynSection, dynRoot, footer}, count
}

func touchpointsServe(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.touchFixture(ctx)
	if err != nil {
		return result{}, err
	}
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	u := env.baseURL + "/v2/touchpoints/serve?screen=home&utm_source=bench"
	want := []byte(`"id":"` + fx.giftCard + `"`)
	r, err := driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		return env.touchGet(ctx, u, tokens[client], func(body []byte) error {
			if !bytes.Contains(body, want) {
				return fmt.Errorf("GET /v2/touchpoints/serve: not the configured gift card: %.300s", body)
			}
			return nil
		})
	})
	r.store = &storeStats{baseline: serveBaseline}
	return r, err
}

func touchpointsTree(ctx context.Context, env *environment, clients int) (result, error) {
	if _, err := env.touchFixture(ctx); err != nil {
		return result{}, err
	}
	u := env.baseURL + "/touchpoints/name/" + url.PathEscape(touchTreeName) + "?coinId=" + url.QueryEscape(env.coinID)
	r, err := driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		return env.touchGet(ctx, u, "", func(body []byte) error {
			// Generated nodes carry the prefix and hydrated data carries price.
			if !bytes.Contains(body, []byte(`"action":"store://reward/`)) || !bytes.Contains(body, []byte(`"price":[{"amount":`)) {
				return fmt.Errorf("GET /touchpoints/name: no expanded or hydrated node: %.300s", body)
			}
			return nil
		})
	})
	r.store = &storeStats{baseline: treeBaseline}
	return r, err
}

// touchGet does a touchpoint GET (with a player token when token is set); a 200 whose body check
// accepts counts as success.
func (env *environment) touchGet(ctx context.Context, u, token string, check func(body []byte) error) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("x-api-key", env.testKey)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
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
	if err := check(body); err != nil {
		return 0, nil, err
	}
	return http.StatusCreated, nil, nil
}

func pgbenchServe(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.touchFixture(ctx)
	if err != nil {
		return result{}, err
	}
	return fx.pgbench(ctx, env, clients, "serve", fx.serveSteps)
}

func pgbenchTree(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.touchFixture(ctx)
	if err != nil {
		return result{}, err
	}
	return fx.pgbench(ctx, env, clients, "tree", fx.treeSteps)
}

// pgbench runs one request's statements as a pgbench script (pgbenchScript) with -M prepared on
// the service's database.
func (fx *touchFixture) pgbench(ctx context.Context, env *environment, clients int, name string, steps []sqlStep) (result, error) {
	dir, err := os.MkdirTemp(env.tmp, "pgbench-"+name+"-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	script, defines, err := pgbenchScript([][]sqlStep{steps})
	if err != nil {
		return result{}, err
	}
	path := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return result{}, err
	}
	if os.Getenv("LOAD_TOUCH_PLANS") != "" {
		fmt.Fprintf(os.Stderr, "--- pgbench script %s\n%s\n", name, script)
	}
	args := []string{"-n", "-M", "prepared", "-f", path}
	for _, d := range defines {
		args = append(args, "-D", d)
	}
	r, err := runPgbench(ctx, env, args, clients, fx.url)
	r.store = &storeStats{}
	return r, err
}

// planModeURL is raw as a URL libpq accepts, connecting with plan_cache_mode mode.
func planModeURL(raw, mode string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(raw, "://") {
		_, out, err := servicePlanCache(raw + " plan_cache_mode=" + mode)
		return out, err
	}
	q := u.Query()
	q.Set("plan_cache_mode", mode)
	u.RawQuery = q.Encode()
	_, out, err := servicePlanCache(u.String())
	return out, err
}

// reportTouchpoints prints the touchpoint goals (their runs are in the rewards store table).
func reportTouchpoints(w io.Writer, results []result) {
	find := func(name string) (result, bool) {
		i := slices.IndexFunc(results, func(r result) bool { return r.scenario == name && r.clients == goalClients })
		if i < 0 {
			return result{}, false
		}
		return results[i], true
	}
	printed := false
	for _, pair := range [][2]string{{serveScenario, serveBaseline}, {treeScenario, treeBaseline}} {
		r, ok := find(pair[0])
		if !ok {
			continue
		}
		if !printed {
			fmt.Fprintln(w)
			if fx := touch; fx != nil {
				fmt.Fprintf(w, "Touchpoints: serve = a gift-card placement with its configured reward, with a player token; tree = %q, %d nodes, "+
					"10 STATIC rewards and 2 DYNAMIC nodes (10 rewards each), with coinId.\n", touchTreeName, fx.nodes)
				fmt.Fprintln(w, "pgbench-tree runs the statements the tree ran before its rewards came from the read model (the baseline of today's")
				fmt.Fprintln(w, "statements): the service now reads the STATIC rewards and DYNAMIC rules from memory (its round trips per request are below).")
				fmt.Fprintln(w, "pgbench-serve and pgbench-tree connect with plan_cache_mode=auto, as the service runs its lookups (cached prepared")
				fmt.Fprintln(w, "statements), and run the rule statement with force_custom_plan, as the service plans it (customPlans).")
				fmt.Fprintln(w, "Their statements, EXPLAIN ANALYZE once on the idle database before the runs (custom plans):")
				for _, line := range fx.timings {
					fmt.Fprintln(w, "  "+line)
				}
			}
			printed = true
		}
		if base, okB := find(pair[1]); okB && base.throughput > 0 {
			x := r.throughput / base.throughput
			fmt.Fprintf(w, "Goal at %d clients: %s ≥ %.0f%% of %s: %.0f%% — %s\n", goalClients, pair[0], 100*goalTouchRatio, pair[1], 100*x, verdict(x >= goalTouchRatio))
		} else {
			fmt.Fprintf(w, "Goal not evaluated: it needs %s and %s at %d clients in the run.\n", pair[0], pair[1], goalClients)
		}
		fmt.Fprintf(w, "Goal at %d clients: %s p99 < %s: %s — %s\n", goalClients, pair[0], ms(goalTouchP99), ms(r.p99), verdict(r.p99 < goalTouchP99))
	}
}
