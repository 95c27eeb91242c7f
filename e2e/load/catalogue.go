package main

// The rewards store scenarios: GET /rewards and GET /rewards/search over a seeded catalogue
// (catalogue_seed.go), each beside pgbench answering the same request in SQL (catalogue_sql.go)
// on the same PostgreSQL: the service serves lists and searches from its read model, and the
// ratio says what that gains over the database answering them.
//
// Per request the SQL answer is: the API key lookup, the player (bearer token), the coin that
// prices the list, then the list or the search (the storage tests' reference statements) and,
// when the page holds pool coupons, their free codes; a search with no type also looks up
// brands and categories. The pgbench script of each endpoint runs those statements, in that
// order, with -M prepared (pgx prepares and
// caches its statements too) and the service's plan_cache_mode, each transaction for a request
// shape (contentLogic and page, or search term) drawn at random as the HTTP clients draw or
// rotate them, with the free-codes statement only for the pages that need it (see
// pgbenchScript).
//
// The search runs full text first and, only when that finds nothing, the same statement again
// with trigram similarity (the reference's Search): real words and prefixes run one search
// statement, typos two. They are two benchmarks, each with its own pgbench script:
// rewards-search (words and prefixes, the mix the p95 goal is for) and rewards-search-typo.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"

	"github.com/rewardsco/rewards/core/catalogue"
	"github.com/rewardsco/rewards/core/studio"
)

// The catalogue's size and the store goals, checked at goalClients clients.
const (
	storeCategories = 40
	storeBrands     = 500
	storeRewards    = 10_000
	storePageSize   = 20
	storePages      = 5 // rewards-list asks for pages 1 to storePages

	goalStoreRatio = 0.5 // each endpoint at least half its statements' throughput under pgbench
	goalSearchP95  = 20 * time.Millisecond

	listScenario   = "rewards-list"
	listBaseline   = "pgbench-list"
	searchScenario = "rewards-search"
	searchBaseline = "pgbench-search"
	typoScenario   = "rewards-search-typo"
	// uncachedScenario searches more distinct texts, in more orders, than the read model keeps
	// the matches of: every search is found and ranked afresh.
	uncachedScenario = "rewards-search-uncached"
	typoBaseline     = "pgbench-search-typo"

	// How the service runs the catalogue's statements (adapters/postgres customPlans: unnamed
	// statements, planned for their values at every execution): pgbench -M prepared gets the same
	// planning with plan_cache_mode force_custom_plan, unless the DATABASE_URL sets a mode.
	servicePlanCacheMode = "force_custom_plan"
)

// storeStats is what a rewards store run adds to its result.
type storeStats struct {
	baseline string            // HTTP runs: the pgbench scenario running their statements
	zeroHits int64             // searches answered with no reward
	answered int64             // searches answered
	calls    []storeCall       // search runs: the terms in rotation
	byTerm   [][]time.Duration // search runs: the latencies of each of calls (failures included)
	plan     *storePlan        // of the endpoint's main statement, after the first run of the pair
}

// storePlan is EXPLAIN (ANALYZE, BUFFERS) of a main statement: with its values as literals (the
// custom plan PostgreSQL makes for them), and as a prepared statement, the one pgx and pgbench -M
// prepared run, after five or more executions with other values: from the sixth on, with
// plan_cache_mode auto, PostgreSQL's plan cache uses a generic plan (made without the values)
// when it thinks it no dearer than the custom plans so far; the service's catalogue statements,
// unnamed and planned for their values each time, never get one.
type storePlan struct {
	endpoint string
	of       string // the request
	custom   string
	prepared string
	before   int  // executions of the prepared statement before the explained one
	generic  bool // the prepared statement went generic
}

// storeCall is one request shape and the statements that answer it in SQL.
type storeCall struct {
	ord   string // rewards-list: contentLogic
	page  int
	text  string // rewards-search: q
	kind  string // rewards-search: word, prefix or typo
	steps []sqlStep
	total int64 // rewards the main query counts
}

// storeFixture is the seeded catalogue and what the scenarios need of it, made by the first
// store scenario to run.
type storeFixture struct {
	dbURL     string // for pgbench and the plans: with the service's plan_cache_mode
	planMode  string // the service's plan_cache_mode
	seed      seedInfo
	queries   map[string]sqlQuery
	lists     []storeCall
	searches  []storeCall // real words and prefixes: full text finds them
	typoCalls []storeCall // one-edit typos: full text finds nothing, trigram similarity does
	typos     struct {
		tried, kept int
		exact       int // candidates full text finds (a real prefix): no typo to the service
	}
	planned map[string]bool
}

// store is the fixture of this run (a package variable: one environment per process).
var store *storeFixture

func (env *environment) storeFixture(ctx context.Context) (*storeFixture, error) {
	if store != nil {
		return store, nil
	}
	queries, err := loadStoreQueries()
	if err != nil {
		return nil, err
	}
	// At least one player, for the statements' player lookup.
	if _, err := env.playerTokens(ctx, 1); err != nil {
		return nil, err
	}
	mode, dbURL, err := servicePlanCache(env.dbURL)
	if err != nil {
		return nil, err
	}
	fx := &storeFixture{dbURL: dbURL, planMode: mode, queries: queries, planned: map[string]bool{}}
	conn, err := pgx.Connect(ctx, fx.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := paramTypes(ctx, conn, queries); err != nil {
		return nil, err
	}

	var gameID, playerID string
	var coinsPerUnit int64
	if err := conn.QueryRow(ctx, `SELECT game_id::text, coins_per_unit FROM coins WHERE id = $1`, env.coinID).Scan(&gameID, &coinsPerUnit); err != nil {
		return nil, fmt.Errorf("the benchmark coin: %w", err)
	}
	if err := conn.QueryRow(ctx, `SELECT id::text FROM players WHERE game_id = $1 AND environment = $2 ORDER BY created_at LIMIT 1`,
		gameID, string(studio.Test)).Scan(&playerID); err != nil {
		return nil, fmt.Errorf("a benchmark player: %w", err)
	}

	fmt.Fprintf(os.Stderr, "seeding the catalogue (%d rewards, %d brands, %d categories)…\n", storeRewards, storeBrands, storeCategories)
	if env.pg == nil {
		fmt.Fprintln(os.Stderr, "  (into the catalogue of -database-url, which is shared by every game of that deployment)")
	}
	if fx.seed, err = seedCatalogue(ctx, conn, queries["catalogueRefreshSearch"], gameID, env.coinID); err != nil {
		return nil, err
	}
	// The read model's load of the seeded catalogue, as an instance's start-up does (readmodel.go).
	if _, err := measureSnapshot(ctx, env); err != nil {
		return nil, fmt.Errorf("load the catalogue's read model: %w", err)
	}

	// The statements of every request, with the values the service passes.
	now := str(time.Now().UTC().Format(time.RFC3339Nano))
	auth := []sqlStep{
		{queries["studioFindAPIKey"], sqlArgs{"keyHash": str(`\x` + hex.EncodeToString(studio.HashKey(env.testKey)))}},
		{queries["playersGet"], sqlArgs{"ID": str(playerID), "GameID": str(gameID), "Environment": str(string(studio.Test))}},
		{queries["coinsGet"], sqlArgs{"ID": str(env.coinID), "GameID": str(gameID)}},
	}
	price := sqlArgs{"CoinID": str(env.coinID), "CoinsPerUnit": str(strconv.FormatInt(coinsPerUnit, 10)), "GameID": str(gameID),
		"Now": now, "Country": str(""), "Lim": str(strconv.Itoa(storePageSize))}
	with := func(base sqlArgs, more sqlArgs) sqlArgs {
		out := sqlArgs{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			out[k] = v
		}
		return out
	}
	for _, ord := range []string{"DEFAULT", "NEWEST", "TRENDING", "PRICE_LOW_HIGH", "PRICE_HIGH_LOW", "DISCOUNT"} {
		for page := 1; page <= storePages; page++ {
			c := storeCall{ord: ord, page: page}
			c.steps = append(slices.Clone(auth), sqlStep{queries["catalogueListVisible"], with(price, sqlArgs{"Ord": str(ord),
				"Dedupe": str("false"), "Category": str(""), "Brand": str(""), "GiftCard": nil, "RewardIds": str("{}"),
				"Off": str(strconv.Itoa((page - 1) * storePageSize))})})
			if err := fx.complete(ctx, conn, &c); err != nil {
				return nil, err
			}
			if c.total == 0 {
				return nil, fmt.Errorf("GET /rewards with contentLogic %s finds no reward for the benchmark game", ord)
			}
			fx.lists = append(fx.lists, c)
		}
	}
	search := func(q, kind string) (storeCall, error) {
		q = strings.ToLower(strings.TrimSpace(q))
		searchStep := func(fuzzy bool) sqlStep {
			return sqlStep{queries["catalogueSearch"], with(price, sqlArgs{"Ord": str("RELEVANCE"), "Q": str(q), "Tsq": str(storeTSQuery(q)),
				"Fuzzy": str(strconv.FormatBool(fuzzy)), "Brands": str("{}"), "BrandsLower": str("{}"), "Categories": str("{}"),
				"CategoriesLower": str("{}"), "Off": str("0")})}
		}
		c := storeCall{text: q, kind: kind, page: 1}
		c.steps = append(slices.Clone(auth),
			sqlStep{queries["catalogueBrands"], sqlArgs{"GameID": str(gameID), "Now": now, "GiftCard": nil, "Category": str(""),
				"Q": str(q), "Lim": str("20")}},
			sqlStep{queries["catalogueCategories"], sqlArgs{"GameID": str(gameID), "Now": now, "Q": str(q), "Lim": str("20")}},
			searchStep(false))
		if err := fx.complete(ctx, conn, &c); err != nil || c.total > 0 {
			return c, err
		}
		// As the reference does: full text found nothing, so the query is taken for a typo and
		// run again with trigram similarity.
		c.steps = append(c.steps, searchStep(true))
		return c, fx.complete(ctx, conn, &c)
	}
	for _, t := range searchTerms() {
		c, err := search(t.text, t.kind)
		if err != nil {
			return nil, err
		}
		if c.fuzzy() {
			return nil, fmt.Errorf("GET /rewards/search?q=%s (a %s) finds nothing by full text: the words and prefixes are searches full text answers", c.text, t.kind)
		}
		fx.searches = append(fx.searches, c)
	}
	// One-edit typos of brand names and common words: those the search's trigram match is
	// there to catch (word similarity ≥ 0.6); many one-letter slips in a short word fall below it.
	// A slip that is a real prefix of some word is found by full text: no typo to the service.
	for _, t := range typoCandidates() {
		if fx.typos.kept == 8 {
			break
		}
		c, err := search(t, "typo")
		if err != nil {
			return nil, err
		}
		fx.typos.tried++
		switch {
		case !c.fuzzy():
			fx.typos.exact++
		case c.total > 0:
			fx.typos.kept++
			fx.typoCalls = append(fx.typoCalls, c)
		}
	}
	if len(fx.typoCalls) == 0 {
		return nil, fmt.Errorf("none of the first %d one-edit typos is caught by the trigram match", fx.typos.tried)
	}
	store = fx
	return fx, nil
}

// complete runs the call's main (last) statement once, as the service would, to count what it
// finds and, like catalogue.FillFree, add the free-codes statement when the page holds
// coupons with a code pool.
func (fx *storeFixture) complete(ctx context.Context, conn *pgx.Conn, c *storeCall) error {
	main := c.steps[len(c.steps)-1]
	rows, err := main.query(ctx, conn, "")
	if err != nil {
		return fmt.Errorf("%s: %w", main.q.name, err)
	}
	col := map[string]int{}
	for i, f := range rows.FieldDescriptions() {
		if _, seen := col[f.Name]; !seen {
			col[f.Name] = i
		}
	}
	var pool []string
	for rows.Next() {
		raw := rows.RawValues()
		if string(raw[col["type"]]) == "COUPON" && raw[col["shared_code"]] == nil {
			pool = append(pool, string(raw[col["id"]]))
		}
		c.total, _ = strconv.ParseInt(string(raw[col["total"]]), 10, 64)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: %w", main.q.name, err)
	}
	if len(pool) > 0 {
		c.steps = append(c.steps, sqlStep{fx.queries["catalogueFreeCodesOf"], sqlArgs{"ids": str("{" + strings.Join(pool, ",") + "}")}})
	}
	return nil
}

// storeTSQuery is the reference's tsQuery: each word of what was typed becomes a prefix.
func storeTSQuery(text string) string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = w + ":*"
	}
	return strings.Join(words, " & ")
}

type searchTerm struct{ text, kind string }

// searchTerms are the real-word and prefix searches: brand names, a brand with "gift card",
// category and product words, and their first 3 or 4 letters.
func searchTerms() []searchTerm {
	brands := seedBrands()
	b := func(i int) string { return brands[i].word }
	return []searchTerm{
		{b(17), "word"}, {b(123), "word"}, {b(256), "word"}, {b(389), "word"}, {b(444) + " gift card", "word"},
		{"electronics", "word"}, {"headphones", "word"}, {"coffee", "word"},
		{b(31)[:3], "prefix"}, {b(142)[:4], "prefix"}, {b(207)[:3], "prefix"}, {b(333)[:4], "prefix"}, {b(470)[:3], "prefix"},
		{"elec", "prefix"}, {"head", "prefix"}, {"cof", "prefix"},
	}
}

// typoCandidates are one-edit slips (a wrong, dropped, doubled or swapped letter) of brand names
// of 7 letters or more and of common words, best candidates first.
func typoCandidates() []string {
	var words []string
	for _, b := range seedBrands() {
		if len(b.word) >= 7 {
			words = append(words, b.word)
		}
	}
	words = append([]string{"headphones", "electronics", "chocolates", "sunglasses"}, words...)
	var out []string
	for i, w := range words {
		n := len(w)
		switch i % 4 {
		case 0: // a wrong last letter
			last := byte('a' + (w[n-1]-'a'+1)%26)
			out = append(out, w[:n-1]+string(last))
		case 1: // a dropped letter
			out = append(out, w[:n-2]+w[n-1:])
		case 2: // a doubled letter
			out = append(out, w[:n-1]+w[n-2:])
		default: // two letters swapped
			out = append(out, w[:n-3]+string(w[n-2])+string(w[n-3])+w[n-1:])
		}
		if len(out) >= 60 {
			break
		}
	}
	return out
}

// mainSteps are the call's list or search statements, in order: one, or for a typo the full
// text search that finds nothing and then the trigram one.
func (c storeCall) mainSteps() []sqlStep {
	var out []sqlStep
	for _, st := range c.steps {
		if st.q.name == "catalogueListVisible" || st.q.name == "catalogueSearch" {
			out = append(out, st)
		}
	}
	return out
}

// mainStep is the call's last list or search statement, the one whose rows are answered.
func (c storeCall) mainStep() sqlStep {
	var main sqlStep
	if steps := c.mainSteps(); len(steps) > 0 {
		main = steps[len(steps)-1]
	}
	return main
}

// fuzzy says the call runs the search a second time, with trigram similarity.
func (c storeCall) fuzzy() bool { return len(c.mainSteps()) > 1 }

// plan explains the main statement of calls[0] the first time it is asked for that request
// (nil after). The prepared statement is first executed for five other calls, as the service's
// is for the requests before, each with all its main statements (a typo's two searches), then
// for the main statements of calls[0] before the explained one.
func (fx *storeFixture) plan(ctx context.Context, calls []storeCall, of string) (*storePlan, error) {
	main := calls[0].mainStep()
	key := main.q.name + " " + of
	if fx.planned[key] {
		return nil, nil
	}
	fx.planned[key] = true
	conn, err := pgx.Connect(ctx, fx.dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	lines := func(rows pgx.Rows, err error) (string, error) {
		if err != nil {
			return "", fmt.Errorf("explain %s: %w", main.q.name, err)
		}
		list, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			return "", fmt.Errorf("explain %s: %w", main.q.name, err)
		}
		return strings.Join(list, "\n"), nil
	}
	p := &storePlan{endpoint: "GET /rewards", of: of}
	if main.q.name == "catalogueSearch" {
		p.endpoint = "GET /rewards/search"
	}
	if p.custom, err = lines(main.query(ctx, conn, "EXPLAIN (ANALYZE, BUFFERS) ")); err != nil {
		return nil, err
	}
	simple := pgx.QueryExecModeSimpleProtocol
	if _, err := conn.Exec(ctx, "PREPARE load_explain AS "+main.q.sql, simple); err != nil {
		return nil, fmt.Errorf("prepare %s: %w", main.q.name, err)
	}
	var before []sqlStep
	for i := range 5 {
		before = append(before, calls[(i+1)*len(calls)/6].mainSteps()...)
	}
	own := calls[0].mainSteps()
	before = append(before, own[:len(own)-1]...)
	for _, st := range before {
		other, err := st.literals()
		if err != nil {
			return nil, err
		}
		if _, err := conn.Exec(ctx, "EXECUTE load_explain("+other+")", simple); err != nil {
			return nil, fmt.Errorf("execute %s: %w", main.q.name, err)
		}
	}
	p.before = len(before)
	args, err := main.literals()
	if err != nil {
		return nil, err
	}
	if p.prepared, err = lines(conn.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) EXECUTE load_explain("+args+")", simple)); err != nil {
		return nil, err
	}
	// A custom plan has the game's id in it as a constant; a generic one a parameter.
	p.generic = !strings.Contains(p.prepared, *main.args["GameID"])
	return p, nil
}

// ---- HTTP ----

// listDecodeEvery is how often a client of rewards-list decodes a page whole.
const listDecodeEvery = 64

func rewardsList(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	base := env.baseURL + "/rewards?coinId=" + url.QueryEscape(env.coinID) + "&limit=" + strconv.Itoa(storePageSize)
	// Decoding every page would cost the load generator, on the service's own cores, more CPU
	// than the service spends making it (a page of 20 is tens of kB of texts): each client decodes
	// every listDecodeEvery-th page whole, and checks the others for a non-empty page by their
	// first bytes (the service writes "items" first).
	answers := make([]int, clients)
	r, err := driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		c := fx.lists[rand.IntN(len(fx.lists))]
		u := base + "&contentLogic=" + c.ord + "&page=" + strconv.Itoa(c.page)
		answers[client]++
		whole := answers[client]%listDecodeEvery == 1
		return env.storeGet(ctx, u, tokens[client], func(body []byte) error {
			if !whole {
				if !bytes.HasPrefix(body, []byte(`{"items":[{`)) {
					return fmt.Errorf("GET /rewards?contentLogic=%s&page=%d: not a non-empty page: %.100s", c.ord, c.page, body)
				}
				return nil
			}
			var page struct {
				Items []json.RawMessage `json:"items"`
				Total int64             `json:"total"`
			}
			if err := json.Unmarshal(body, &page); err != nil {
				return fmt.Errorf("GET /rewards: undecodable answer: %w", err)
			}
			if page.Total == 0 || len(page.Items) == 0 {
				return fmt.Errorf("GET /rewards?contentLogic=%s&page=%d: empty list (the statements find %d)", c.ord, c.page, c.total)
			}
			return nil
		})
	})
	if err != nil {
		return r, err
	}
	r.store = &storeStats{baseline: listBaseline}
	return r, fx.attachPlan(ctx, &r, fx.lists, "contentLogic DEFAULT, page 1")
}

func rewardsSearch(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	return fx.searchHTTP(ctx, env, clients, fx.searches, searchBaseline)
}

func rewardsSearchTypo(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	return fx.searchHTTP(ctx, env, clients, fx.typoCalls, typoBaseline)
}

// rewardsSearchUncached searches each brand's word and its first 3 and 4 letters (about 1,500
// texts) in each of the 8 sortBys, the texts in turn: the read model keeps the last 1,024
// searches and the names matched for the last 1,024 texts, so none is found in them.
func rewardsSearchUncached(ctx context.Context, env *environment, clients int) (result, error) {
	if _, err := env.storeFixture(ctx); err != nil {
		return result{}, err
	}
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	seen := map[string]bool{}
	var texts []string
	for _, b := range seedBrands() {
		for _, t := range []string{b.word, b.word[:min(3, len(b.word))], b.word[:min(4, len(b.word))]} {
			if !seen[t] {
				seen[t] = true
				texts = append(texts, t)
			}
		}
	}
	sorts := slices.Sorted(maps.Keys(catalogue.SortBys))
	base := env.baseURL + "/rewards/search?coinId=" + url.QueryEscape(env.coinID) + "&limit=" + strconv.Itoa(storePageSize) + "&page=1"
	var n atomic.Int64
	return driveHTTP(ctx, env, clients, func(ctx context.Context, client int) (int, []byte, error) {
		k := int(n.Add(1))
		text, sort := texts[k%len(texts)], sorts[(k/len(texts))%len(sorts)]
		return env.storeGet(ctx, base+"&sortBy="+url.QueryEscape(sort)+"&q="+url.QueryEscape(text), tokens[client], func(body []byte) error {
			if _, ok := lastTotal(body); !ok {
				return fmt.Errorf("GET /rewards/search: no rewards total at the end of %.200q", body)
			}
			return nil
		})
	})
}

// searchHTTP has each client go round the search terms of calls.
func (fx *storeFixture) searchHTTP(ctx context.Context, env *environment, clients int, calls []storeCall, baseline string) (result, error) {
	tokens, err := env.playerTokens(ctx, clients)
	if err != nil {
		return result{}, err
	}
	base := env.baseURL + "/rewards/search?coinId=" + url.QueryEscape(env.coinID) + "&limit=" + strconv.Itoa(storePageSize) + "&page=1&q="
	var answered, zero atomic.Int64
	next := make([]int, clients) // each client goes round the terms, from a place of its own
	for i := range next {
		next[i] = i * len(calls) / clients
	}
	lat := make([][][]time.Duration, clients) // client → term → latencies of its answers
	for i := range lat {
		lat[i] = make([][]time.Duration, len(calls))
	}
	do := func(ctx context.Context, client int) (int, []byte, error) {
		term := next[client] % len(calls)
		c := calls[term]
		next[client]++
		start := time.Now()
		defer func() { lat[client][term] = append(lat[client][term], time.Since(start)) }()
		n := next[client]
		return env.storeGet(ctx, base+url.QueryEscape(c.text), tokens[client], func(body []byte) error {
			// The rewards' total is the answer's last field. Decoding every answer would cost the
			// load generator more CPU than the service spends on it, on the same cores (as for
			// rewards-list): every 64th is decoded whole and must agree.
			total, ok := lastTotal(body)
			if !ok {
				return fmt.Errorf("GET /rewards/search: no rewards total at the end of %.200q", body)
			}
			if n%64 == 0 {
				var res struct {
					Rewards *struct {
						Total int64 `json:"total"`
					} `json:"rewards"`
				}
				if err := json.Unmarshal(body, &res); err != nil || res.Rewards == nil || res.Rewards.Total != total {
					return fmt.Errorf("GET /rewards/search: undecodable answer or another total (%v)", err)
				}
			}
			answered.Add(1)
			if total == 0 {
				zero.Add(1)
			}
			return nil
		})
	}
	// driveHTTP's warm-up and run, with the tallies above cleared in between.
	if err := env.warmUp(ctx, clients, do); err != nil {
		return result{}, err
	}
	answered.Store(0)
	zero.Store(0)
	for i := range lat {
		clear(lat[i])
	}
	r := loop(ctx, clients, env.opts.duration, do)
	if err := ctx.Err(); err != nil {
		return r, err
	}
	r.store = &storeStats{baseline: baseline, answered: answered.Load(), zeroHits: zero.Load(),
		calls: calls, byTerm: make([][]time.Duration, len(calls))}
	for _, perTerm := range lat {
		for t, l := range perTerm {
			r.store.byTerm[t] = append(r.store.byTerm[t], l...)
		}
	}
	return r, fx.attachPlan(ctx, &r, calls, fmt.Sprintf("q=%q", calls[0].text))
}

func (fx *storeFixture) attachPlan(ctx context.Context, r *result, calls []storeCall, of string) error {
	plan, err := fx.plan(ctx, calls, of)
	if err != nil {
		return err
	}
	r.store.plan = plan
	return nil
}

// storeGet does a store GET as a player; a 200 whose body check accepts counts as success
// (runClients counts 201s: that is what it is told).
func (env *environment) storeGet(ctx context.Context, u, token string, check func(body []byte) error) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("x-api-key", env.testKey)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("x-language", "en")
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

// ---- pgbench ----

func pgbenchList(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	r, err := fx.pgbench(ctx, env, clients, "list", fx.lists)
	if err != nil {
		return r, err
	}
	return r, fx.attachPlan(ctx, &r, fx.lists, "contentLogic DEFAULT, page 1")
}

func pgbenchSearch(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	r, err := fx.pgbench(ctx, env, clients, "search", fx.searches)
	if err != nil {
		return r, err
	}
	return r, fx.attachPlan(ctx, &r, fx.searches, fmt.Sprintf("q=%q", fx.searches[0].text))
}

func pgbenchSearchTypo(ctx context.Context, env *environment, clients int) (result, error) {
	fx, err := env.storeFixture(ctx)
	if err != nil {
		return result{}, err
	}
	r, err := fx.pgbench(ctx, env, clients, "search-typo", fx.typoCalls)
	if err != nil {
		return r, err
	}
	return r, fx.attachPlan(ctx, &r, fx.typoCalls, fmt.Sprintf("q=%q", fx.typoCalls[0].text))
}

// pgbench runs the calls' script (pgbenchScript: each transaction one call, drawn at random with
// equal weights) on the service's database with -M prepared, and reads its transaction log for
// the latencies.
func (fx *storeFixture) pgbench(ctx context.Context, env *environment, clients int, name string, calls []storeCall) (result, error) {
	dir, err := os.MkdirTemp(env.tmp, "pgbench-"+name+"-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	var steps [][]sqlStep
	for _, c := range calls {
		steps = append(steps, c.steps)
	}
	script, defines, err := pgbenchScript(steps)
	if err != nil {
		return result{}, err
	}
	path := filepath.Join(dir, name+".sql")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		return result{}, err
	}
	args := []string{"-n", "-M", "prepared", "-f", path}
	for _, d := range defines {
		args = append(args, "-D", d)
	}
	r, err := runPgbench(ctx, env, args, clients, fx.dbURL)
	r.store = &storeStats{}
	return r, err
}

// ---- report ----

// reportStore prints the rewards store runs: each endpoint beside its statements under
// pgbench, the goals, the search mix and the plans.
func reportStore(w io.Writer, results []result) {
	var runs []result
	for _, r := range results {
		if r.store != nil {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return
	}
	find := func(name string, clients int) (result, bool) {
		for _, r := range runs {
			if r.scenario == name && r.clients == clients {
				return r, true
			}
		}
		return result{}, false
	}
	ratio := func(r result) (float64, bool) {
		if r.store == nil || r.store.baseline == "" {
			return 0, false
		}
		base, ok := find(r.store.baseline, r.clients)
		if !ok || base.throughput == 0 {
			return 0, false
		}
		return r.throughput / base.throughput, true
	}

	fmt.Fprintln(w)
	if fx := store; fx != nil {
		how := fmt.Sprintf("seeded in %s", fx.seed.took.Round(100*time.Millisecond))
		if fx.seed.reused {
			how = "seeded by an earlier run, reused"
		}
		fmt.Fprintf(w, "Rewards store: %d rewards of %d brands in %d categories, %d pool codes, %d reward-days of orders, %d hidden for the game (%s).\n",
			fx.seed.rewards, fx.seed.brands, fx.seed.categories, fx.seed.codes, fx.seed.orderDays, fx.seed.gameHidden, how)
	}
	fmt.Fprintln(w, "Each endpoint beside pgbench -M prepared running the statements it runs, in order, on the same PostgreSQL")
	fmt.Fprintln(w, "(API key, player, coin, then the list, or brands, categories and the search, then free codes when the page has pool coupons).")
	fmt.Fprintln(w, "GET /rewards no longer runs its statements (the catalogue's read model, cached authentication and coin): pgbench-list runs")
	fmt.Fprintln(w, "those it ran before, the baseline of today's statements.")
	if fx := store; fx != nil {
		fmt.Fprintf(w, "pgbench and the plans below run with plan_cache_mode=%s, as the service's connections do.\n", fx.planMode)
	}
	if slices.ContainsFunc(runs, func(r result) bool { return r.scenario == typoScenario || r.scenario == typoBaseline }) {
		fmt.Fprintln(w, "A typo's search runs twice: full text, which finds nothing, then the same statement with trigram similarity.")
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tclients\tthroughput/s\tp50\tp95\tp99\tof its SQL\t")
	for _, r := range runs {
		of := ""
		if x, ok := ratio(r); ok {
			of = fmt.Sprintf("%.0f%%", 100*x)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%s\t%s\t%s\t%s\t\n", r.scenario, r.clients, r.throughput, ms(r.p50), ms(r.p95), ms(r.p99), of)
	}
	tw.Flush()

	fmt.Fprintln(w)
	for _, pair := range [][2]string{{listScenario, listBaseline}, {searchScenario, searchBaseline}, {typoScenario, typoBaseline}} {
		r, ok := find(pair[0], goalClients)
		_, okB := find(pair[1], goalClients)
		if !ok && !okB {
			continue // neither in the run
		}
		x, okX := ratio(r)
		if !ok || !okX {
			fmt.Fprintf(w, "Goal not evaluated: it needs %s and %s at %d clients in the run.\n", pair[0], pair[1], goalClients)
			continue
		}
		fmt.Fprintf(w, "Goal at %d clients: %s ≥ %.0f%% of %s: %.0f%% — %s\n", goalClients, pair[0], 100*goalStoreRatio, pair[1], 100*x, verdict(x >= goalStoreRatio))
	}
	if r, ok := find(searchScenario, goalClients); ok {
		fmt.Fprintf(w, "Goal at %d clients: %s p95 ≤ %s: %s — %s\n", goalClients, searchScenario, ms(goalSearchP95), ms(r.p95), verdict(r.p95 <= goalSearchP95))
	}
	if r, ok := find(typoScenario, goalClients); ok {
		fmt.Fprintf(w, "Goal at %d clients: %s p95 ≤ %s, for reference (the goal is for real words and prefixes): %s — %s\n",
			goalClients, typoScenario, ms(goalSearchP95), ms(r.p95), verdict(r.p95 <= goalSearchP95))
	}

	ran := func(names ...string) bool {
		return slices.ContainsFunc(runs, func(r result) bool { return slices.Contains(names, r.scenario) })
	}
	if fx := store; fx != nil && ran(listScenario, listBaseline) {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "List requests: contentLogic DEFAULT, NEWEST, TRENDING, PRICE_LOW_HIGH, PRICE_HIGH_LOW, DISCOUNT × page 1–%d of %d, at random.\n", storePages, storePageSize)
	}
	if fx := store; fx != nil && ran(searchScenario, searchBaseline) {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Search mix, in rotation (q → rewards found): %d real words and prefixes, all found by full text (one search statement).\n",
			len(fx.searches))
		reportSearchMix(w, runs, searchScenario, fx.searches, "word", "prefix")
	}
	if fx := store; fx != nil && ran(typoScenario, typoBaseline) {
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Typo mix, in rotation (q → rewards found): one-edit typos, the %d of the first %d candidates the trigram match catches",
			fx.typos.kept, fx.typos.tried)
		if fx.typos.exact > 0 {
			fmt.Fprintf(w, " (%d others are found by full text, no typo to the service, and left out)", fx.typos.exact)
		}
		fmt.Fprintln(w, "; two search statements each.")
		reportSearchMix(w, runs, typoScenario, fx.typoCalls, "typo")
	}
	for _, r := range runs {
		p := r.store.plan
		if p == nil {
			continue
		}
		indent := func(plan string) {
			for _, line := range strings.Split(plan, "\n") {
				fmt.Fprintln(w, "    "+line)
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "Plans of the main statement of %s (%s), EXPLAIN (ANALYZE, BUFFERS) after the %d-client run of %s:\n",
			p.endpoint, p.of, r.clients, r.scenario)
		kind := "custom plan (planned for its values)"
		if p.generic {
			kind = "GENERIC plan"
		}
		fmt.Fprintf(w, "  prepared statement, %s execution (%d before with other values): %s: %s\n", ordinal(p.before+1), p.before, kind, timings(p.prepared))
		fmt.Fprintf(w, "  the same values planned for themselves (custom plan):  %s\n", timings(p.custom))
		if !p.generic {
			fmt.Fprintln(w, "  Plan:")
			indent(p.prepared)
			continue
		}
		fmt.Fprintln(w, "  A prepared statement that went generic keeps that plan for all its later executions on the connection: pgx in")
		fmt.Fprintln(w, "  the service prepares and caches its statements per connection, as pgbench -M prepared does.")
		fmt.Fprintln(w, "  Generic plan:")
		indent(p.prepared)
		fmt.Fprintln(w, "  Custom plan:")
		indent(p.custom)
	}
}

// reportSearchMix prints the terms of a search mix by kind and, for each run of its HTTP
// scenario, the share of answers that found nothing, the latencies by kind and the slowest terms.
func reportSearchMix(w io.Writer, runs []result, scenario string, calls []storeCall, kinds ...string) {
	for _, kind := range kinds {
		var parts []string
		for _, c := range calls {
			if c.kind == kind {
				parts = append(parts, fmt.Sprintf("%q %d", c.text, c.total))
			}
		}
		fmt.Fprintf(w, "  %-8s %s\n", plural(kind), strings.Join(parts, ", "))
	}
	for _, r := range runs {
		if r.scenario != scenario || r.store.answered == 0 {
			continue
		}
		fmt.Fprintf(w, "  %s at %d clients: %.1f%% of %d answers found no reward; by kind, p50/p95:", r.scenario, r.clients,
			100*float64(r.store.zeroHits)/float64(r.store.answered), r.store.answered)
		type termLat struct {
			c   storeCall
			p50 time.Duration
		}
		var terms []termLat
		for _, kind := range kinds {
			var all []time.Duration
			for t, l := range r.store.byTerm {
				if r.store.calls[t].kind == kind {
					all = append(all, l...)
				}
			}
			p50, _ := percentiles(all)
			p95 := time.Duration(0)
			if len(all) > 0 {
				p95 = rank(all, 0.95)
			}
			fmt.Fprintf(w, " %s %s/%s", plural(kind), ms(p50), ms(p95))
		}
		for t, l := range r.store.byTerm {
			p50, _ := percentiles(slices.Clone(l))
			terms = append(terms, termLat{r.store.calls[t], p50})
		}
		slices.SortFunc(terms, func(a, b termLat) int { return cmp.Compare(b.p50, a.p50) })
		var slow []string
		for _, t := range terms[:min(4, len(terms))] {
			slow = append(slow, fmt.Sprintf("%q (%d found) %s", t.c.text, t.c.total, ms(t.p50)))
		}
		fmt.Fprintf(w, "\n    slowest by p50: %s\n", strings.Join(slow, ", "))
	}
}

func ordinal(n int) string {
	switch {
	case n%100 >= 11 && n%100 <= 13:
		return strconv.Itoa(n) + "th"
	case n%10 == 1:
		return strconv.Itoa(n) + "st"
	case n%10 == 2:
		return strconv.Itoa(n) + "nd"
	case n%10 == 3:
		return strconv.Itoa(n) + "rd"
	}
	return strconv.Itoa(n) + "th"
}

// timings are the planning and execution times of an EXPLAIN ANALYZE.
func timings(plan string) string {
	var out []string
	for _, line := range strings.Split(plan, "\n") {
		line = strings.TrimSpace(line)
		for _, what := range []string{"Planning Time: ", "Execution Time: "} {
			if t, ok := strings.CutPrefix(line, what); ok {
				out = append(out, strings.ToLower(strings.TrimSuffix(what, "Time: "))+"time "+t)
			}
		}
	}
	return strings.Join(out, ", ")
}

func plural(kind string) string {
	if kind == "prefix" {
		return "prefixes"
	}
	return kind + "s"
}

// lastTotal reads the number of the last "total" field of a JSON answer.
func lastTotal(body []byte) (int64, bool) {
	at := bytes.LastIndex(body, []byte(`"total":`))
	if at < 0 {
		return 0, false
	}
	digits := body[at+len(`"total":`):]
	end := bytes.IndexAny(digits, ",}")
	if end < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(digits[:end])), 10, 64)
	return n, err == nil
}
