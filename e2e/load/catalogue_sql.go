package main

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The rewards store scenarios compare each endpoint with pgbench running the statements that
// state its rules in SQL: the catalogue's reference statements (which the storage tests hold the
// read model to) and sqlc's statements of what else a request reads. Both are unexported Go
// constants: this file reads them from their source with go/parser (the constant's text, and
// which Params field each $n is, from the call that passes the constant to the database), so
// the comparison follows the queries as they change.

// sqlQuery is one sqlc query: its SQL text and, for $1, $2, …, the name of what is passed there
// (a field of its Params struct, or the method's own argument for single-parameter queries).
type sqlQuery struct {
	name   string
	sql    string
	params []string
	types  []string // of $1, $2, …, as PostgreSQL infers them (set by paramTypes)
	// planMode, when set, is the plan_cache_mode pgbench runs the statement with (SET before
	// it, RESET after), for an endpoint that plans it unlike its other statements.
	planMode string
}

// paramTypes asks PostgreSQL the types of the queries' parameters, as it infers them when pgx
// prepares the statements.
func paramTypes(ctx context.Context, conn *pgx.Conn, queries map[string]sqlQuery) error {
	for name, q := range queries {
		sd, err := conn.Prepare(ctx, "", q.sql)
		if err != nil {
			return fmt.Errorf("prepare %s: %w", name, err)
		}
		q.types = make([]string, len(sd.ParamOIDs))
		for i, oid := range sd.ParamOIDs {
			if err := conn.QueryRow(ctx, `SELECT format_type($1::oid, NULL)`, oid).Scan(&q.types[i]); err != nil {
				return err
			}
		}
		queries[name] = q
	}
	return nil
}

// storeQueryFiles are the sqlc constants the store scenarios use, by generated file.
var storeQueryFiles = map[string][]string{
	"catalogue.sql.go": {"catalogueFreeCodesOf", "catalogueRefreshSearch"},
	// What every player request runs before its handler: the API key, then the player.
	"studio.sql.go":  {"studioFindAPIKey"},
	"players.sql.go": {"playersGet"},
	// The coin that prices the list.
	"coins.sql.go": {"coinsGet"},
	// The touchpoint scenarios (touchpoints.go).
	"touchpoints.sql.go": {"touchpointsListPlacements", "touchpointsGameContext", "touchpointsRewards", "touchpointsCoin",
		"touchpointsTreeByName", "touchpointsBestRewards"},
}

// referenceQueryFile holds the store's listing and search rules in SQL, as the storage tests'
// reference states them (the service serves them from its read model).
const referenceQueryFile = "adapters/postgres/catalogue_reference_test.go"

// referenceQueries are the reference constants the store scenarios use.
var referenceQueries = []string{"catalogueListVisible", "catalogueSearch", "catalogueBrands", "catalogueCategories"}

var (
	placeholder = regexp.MustCompile(`\$([0-9]+)`)
	moduleLine  = regexp.MustCompile(`(?m)^module\s+github\.com/rewardsco/rewards\s*$`)
)

// moduleRoot finds the repository from the working directory (go run ./e2e/load runs from it)
// or, failing that, from where this file was compiled.
func moduleRoot() (string, error) {
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		starts = append(starts, filepath.Dir(file))
	}
	for _, dir := range starts {
		for {
			if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && moduleLine.Match(b) {
				return dir, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return "", errors.New("cannot find the repository (go.mod of github.com/rewardsco/rewards) to read the sqlc queries from: run from inside it")
}

// loadStoreQueries reads the queries of storeQueryFiles and referenceQueries, by constant name.
func loadStoreQueries() (map[string]sqlQuery, error) {
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	files := map[string][]string{filepath.FromSlash(referenceQueryFile): referenceQueries}
	for file, names := range storeQueryFiles {
		files[filepath.Join("adapters", "postgres", "db", file)] = names
	}
	out := map[string]sqlQuery{}
	fset := token.NewFileSet()
	for file, names := range files {
		path := filepath.Join(root, file)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("read the sqlc queries: %w", err)
		}
		consts := map[string]string{}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i >= len(vs.Values) {
						continue
					}
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						if s, err := strconv.Unquote(lit.Value); err == nil {
							consts[n.Name] = s
						}
					}
				}
			}
		}
		// c.db.Query(ctx, catalogueSearch, arg.Ord, arg.CoinID, …): the arguments after the
		// constant are $1, $2, … in order.
		params := map[string][]string{}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) < 2 {
				return true
			}
			id, ok := call.Args[1].(*ast.Ident)
			if !ok {
				return true
			}
			if _, isQuery := consts[id.Name]; !isQuery {
				return true
			}
			var names []string
			for _, a := range call.Args[2:] {
				switch a := a.(type) {
				case *ast.SelectorExpr:
					names = append(names, a.Sel.Name)
				case *ast.Ident:
					names = append(names, a.Name)
				default:
					names = append(names, "?")
				}
			}
			params[id.Name] = names
			return true
		})
		for _, name := range names {
			text, ok := consts[name]
			if !ok {
				return nil, fmt.Errorf("%s: no constant %s (did the sqlc query change name?)", path, name)
			}
			ps, ok := params[name]
			if !ok {
				return nil, fmt.Errorf("%s: no call passes %s to the database", path, name)
			}
			q := sqlQuery{name: name, sql: withoutComments(text), params: ps}
			if n := q.paramCount(); n != len(ps) {
				return nil, fmt.Errorf("%s: %s uses $1…$%d but is called with %d arguments", path, name, n, len(ps))
			}
			out[name] = q
		}
	}
	return out, nil
}

// withoutComments drops sqlc's "-- name: X :many" line (and any other comment line): pgbench
// would take ":many" for a variable.
func withoutComments(sql string) string {
	var keep []string
	for _, line := range strings.Split(sql, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

func (q sqlQuery) paramCount() int {
	n := 0
	for _, m := range placeholder.FindAllStringSubmatch(q.sql, -1) {
		i, _ := strconv.Atoi(m[1])
		n = max(n, i)
	}
	return n
}

// sqlArgs are the values of a query's parameters by name, as text (what the service's pgx sends
// means the same); a nil value is NULL.
type sqlArgs map[string]*string

func str(s string) *string { return &s }

// sqlStep is one statement of a request: a query and its parameters.
type sqlStep struct {
	q    sqlQuery
	args sqlArgs
}

// values lists the step's parameters in $n order.
func (s sqlStep) values() ([]any, error) {
	out := make([]any, len(s.q.params))
	for i, name := range s.q.params {
		v, ok := s.args[name]
		if !ok {
			return nil, fmt.Errorf("%s: no value for parameter %s ($%d): the query changed, update e2e/load/catalogue.go", s.q.name, name, i+1)
		}
		if v != nil {
			out[i] = *v
		}
	}
	return out, nil
}

// query runs the step on conn through the simple protocol (the values are sent as literals,
// exactly the constants a custom plan of the service's prepared statement is made with).
func (s sqlStep) query(ctx context.Context, conn *pgx.Conn, prefix string) (pgx.Rows, error) {
	vals, err := s.values()
	if err != nil {
		return nil, err
	}
	return conn.Query(ctx, prefix+s.q.sql, append([]any{pgx.QueryExecModeSimpleProtocol}, vals...)...)
}

// pgbenchScript is one pgbench script for a set of request shapes (calls) of one endpoint: the
// same statements in the same order, so that, as in the service, each statement is one prepared
// statement per connection, whose plan cache sees every shape (one script per shape would give
// each shape a statement of its own, executed too rarely for the plan cache to ever switch to a
// generic plan, as the service's does after five executions).
//
// Each transaction draws a shape (\set i random(1, n)) and reads its values with \gset from a
// VALUES list: pgbench variables are numbers unless they come from -D or \gset. That is one
// trivial statement more per transaction than the service runs. Values every shape shares are
// -D variables; pgbench has neither NULL nor empty variables (-D refuses an empty value), so
// the lookup also gives :e, an empty string: a parameter the service sends empty is :e, one it
// sends NULL is :e made NULL by NULLIF and cast to the parameter's type. Both stay parameters of
// the prepared statement, as the service's are: written as literals, PostgreSQL would fold the
// "is it empty" and "is it NULL" tests into the generic plan, and its plan cache would choose
// differently from the service's. A statement only some shapes run (the free codes of a page
// with pool coupons) runs under \if.
func pgbenchScript(calls [][]sqlStep) (script string, defines []string, err error) {
	if len(calls) == 0 {
		return "", nil, errors.New("no calls")
	}
	// The longest call is the template; shorter ones must be its prefix.
	tmpl := calls[0]
	for _, c := range calls {
		if len(c) > len(tmpl) {
			tmpl = c
		}
	}
	type column struct {
		step  int
		param string
	}
	var columns []column
	varying := map[column]string{} // → variable name
	for si, st := range tmpl {
		for _, p := range st.q.params {
			col := column{si, p}
			if _, seen := varying[col]; seen {
				continue
			}
			first := st.args[p]
			for _, c := range calls {
				if si >= len(c) {
					continue
				}
				if c[si].q.name != st.q.name {
					return "", nil, fmt.Errorf("statement %d is %s in one call, %s in another", si+1, st.q.name, c[si].q.name)
				}
				v := c[si].args[p]
				if (v == nil) != (first == nil) || (v != nil && *v != *first) {
					varying[col] = "c" + strconv.Itoa(len(columns)+1)
					columns = append(columns, col)
					break
				}
			}
		}
	}
	optional := 0 // statements from here on run only in the calls that have them
	for _, c := range calls {
		if optional == 0 || len(c) < optional {
			optional = len(c)
		}
	}

	consts := map[string]string{} // value → variable
	var b strings.Builder
	fmt.Fprintf(&b, "\\set i random(1, %d)\n", len(calls))
	b.WriteString("SELECT '' AS e, t.* FROM (VALUES\n")
	for ci, c := range calls {
		row := []string{strconv.Itoa(ci + 1)}
		for _, col := range columns {
			v := ""
			if col.step < len(c) {
				p := c[col.step].args[col.param]
				if p == nil {
					return "", nil, fmt.Errorf("%s: %s is NULL in some calls only", c[col.step].q.name, col.param)
				}
				v = *p
			}
			row = append(row, "'"+strings.ReplaceAll(v, "'", "''")+"'")
		}
		row = append(row, strconv.Itoa(min(1, len(c)-optional)))
		sep := ","
		if ci == len(calls)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  (%s)%s\n", strings.Join(row, ", "), sep)
	}
	names := []string{"i"}
	for _, col := range columns {
		names = append(names, varying[col])
	}
	fmt.Fprintf(&b, ") AS t(%s, more) WHERE t.i = :i\n\\gset\n", strings.Join(names, ", "))

	mode := "" // the connection's plan_cache_mode
	for si, st := range tmpl {
		if si == optional {
			b.WriteString("\\if :more\n")
		}
		if st.q.planMode != mode {
			if st.q.planMode == "" {
				b.WriteString("RESET plan_cache_mode;\n")
			} else {
				b.WriteString("SET plan_cache_mode = " + st.q.planMode + ";\n")
			}
			mode = st.q.planMode
		}
		if _, err := st.values(); err != nil {
			return "", nil, err
		}
		if len(st.q.types) != len(st.q.params) {
			return "", nil, fmt.Errorf("%s: parameter types unknown", st.q.name)
		}
		b.WriteString(placeholder.ReplaceAllStringFunc(st.q.sql, func(m string) string {
			i, _ := strconv.Atoi(m[1:])
			p := st.q.params[i-1]
			if name, ok := varying[column{si, p}]; ok {
				return ":" + name
			}
			switch v := st.args[p]; {
			case v == nil:
				return "NULLIF(:e, '')::" + st.q.types[i-1]
			case *v == "":
				return ":e"
			default:
				name, ok := consts[*v]
				if !ok {
					name = "v" + strconv.Itoa(len(consts)+1)
					consts[*v] = name
				}
				return ":" + name
			}
		}))
		b.WriteString(";\n")
	}
	if mode != "" {
		b.WriteString("RESET plan_cache_mode;\n")
	}
	if optional < len(tmpl) {
		b.WriteString("\\endif\n")
	}
	for v, name := range consts {
		defines = append(defines, name+"="+v)
	}
	// Stable order, so the command line reads the same from run to run.
	sort.Strings(defines)
	return b.String(), defines, nil
}

// literals are the step's values as SQL literals, for EXECUTE.
func (s sqlStep) literals() (string, error) {
	vals, err := s.values()
	if err != nil {
		return "", err
	}
	out := make([]string, len(vals))
	for i, v := range vals {
		if v == nil {
			out[i] = "NULL"
			continue
		}
		out[i] = "'" + strings.ReplaceAll(v.(string), "'", "''") + "'"
	}
	return strings.Join(out, ", "), nil
}

// servicePlanCache is the plan_cache_mode that makes pgbench plan the catalogue's statements as
// the service does (its DATABASE_URL's mode, else servicePlanCacheMode) and raw as a URL libpq
// accepts that connects with it.
func servicePlanCache(raw string) (mode, libpq string, err error) {
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		return "", "", fmt.Errorf("the database URL: %w", err)
	}
	mode = cfg.RuntimeParams["plan_cache_mode"]
	if mode == "" {
		mode = servicePlanCacheMode
	}
	opt := "-c plan_cache_mode=" + mode
	u, err := url.Parse(libpqURL(raw))
	if err != nil || !strings.Contains(raw, "://") {
		return mode, raw + " options='" + opt + "'", nil
	}
	q := u.Query()
	q.Del("plan_cache_mode") // a runtime parameter to pgx, unknown to libpq
	q.Set("options", strings.TrimSpace(q.Get("options")+" "+opt))
	// Neither libpq nor pgx reads "+" as a space in a URL: %20 (a "+" of a value is %2B).
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	return mode, u.String(), nil
}

// libpqURL is a database URL pgbench (libpq) accepts: pgx's own pool_* parameters removed.
func libpqURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !strings.Contains(raw, "://") {
		return raw
	}
	q := u.Query()
	for k := range q {
		if strings.HasPrefix(k, "pool_") {
			q.Del(k)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
