package app_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	// The runtime packages of the generated clients. The test builds the clients in a module of
	// its own made of this module's go.mod and go.sum; importing the packages here keeps their
	// versions in go.mod and their hashes in go.sum, so that module builds from the module
	// cache (or the module proxy) with nothing resolved at test time.
	_ "github.com/go-faster/jx"
	_ "github.com/oapi-codegen/runtime"
	_ "github.com/oapi-codegen/runtime/types"
	_ "github.com/ogen-go/ogen/ogenerrors"
	_ "github.com/ogen-go/ogen/otelogen"
)

// clientDocument is one OpenAPI document the service serves, as generators read it.
type clientDocument struct {
	path    string // where it is served
	version string // "31" or "30": the suffix of the packages generated from it
	public  bool   // the studio and partner document (the journeys run on its clients)
	prefix  string // of the packages generated from it: "" public, "op" operator, "st" studio API
	raw     []byte // indented, so that generators' line numbers mean something
}

// TestGeneratedClients generates clients of every served OpenAPI document with the two
// generators a studio or a partner would pick, ogen and oapi-codegen (pinned as Go tools in
// go.mod), fails on any error or warning either prints about a document, compiles and vets
// the clients, and runs the journeys of testdata/clientjourney through each ogen client of the
// public documents against the running service. ogen's generated decoders are strict (unknown
// fields, missing required fields, nulls, undeclared statuses and media types all fail), so an
// answer the document describes wrongly fails the journey.
//
// The clients are generated into a temporary module whose go.mod and go.sum are this module's:
// nothing generated is committed, nothing is resolved at test time, and with -trimpath the
// build cache serves the compiled clients again while the documents do not change.
func TestGeneratedClients(t *testing.T) {
	t.Parallel()
	p := setupPartner(t, "INR", time.Minute)
	mod := clientModule(t)

	var generated []string
	for _, doc := range clientDocuments(t, p.srv.URL) {
		name := strings.TrimPrefix(strings.ReplaceAll(doc.path, "/", "-"), "-")
		spec := filepath.Join(mod, "docs", name)
		require.NoError(t, os.WriteFile(spec, doc.raw, 0o644))
		ogenPkg, oapiPkg := "ogen"+doc.prefix+doc.version, "oapi"+doc.prefix+doc.version
		t.Run(ogenPkg+" "+doc.path, func(t *testing.T) {
			generateOgen(t, mod, spec, doc.raw, ogenPkg)
			generated = append(generated, ogenPkg)
			if doc.public {
				addJourney(t, mod, ogenPkg, "journey"+doc.version)
			}
		})
		t.Run(oapiPkg+" "+doc.path, func(t *testing.T) {
			generateOapiCodegen(t, mod, spec, oapiPkg)
			generated = append(generated, oapiPkg)
		})
	}
	if len(generated) == 0 {
		return
	}
	t.Logf("generated: %s", strings.Join(generated, ", "))
	if !t.Run("compile", func(t *testing.T) { goIn(t, mod, "vet", "-trimpath", "./...") }) {
		return
	}
	if !slices.ContainsFunc(generated, func(pkg string) bool { return pkg == "ogen31" || pkg == "ogen30" }) {
		return
	}
	world := journeyWorld(t, p)
	raw, err := json.Marshal(world)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(mod, "world.json"), raw, 0o644))
	t.Run("journeys", func(t *testing.T) { goIn(t, mod, "test", "-trimpath", "-count=1", "./journey...") })
}

// clientModule makes the temporary module the clients are generated into; with
// REWARDS_CLIENTS_DIR set, that directory, emptied first and kept (to read what was generated).
func clientModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if keep := os.Getenv("REWARDS_CLIENTS_DIR"); keep != "" {
		require.NoError(t, os.RemoveAll(keep))
		require.NoError(t, os.MkdirAll(keep, 0o755))
		dir = keep
	}
	gomod, err := os.ReadFile("../go.mod")
	require.NoError(t, err)
	renamed := regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module rewardsclients"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), renamed, 0o644))
	gosum, err := os.ReadFile("../go.sum")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.sum"), gosum, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "docs"), 0o755))
	return dir
}

// clientDocuments fetches the public documents (3.1 and 3.0), the operator's and the studio
// API's.
func clientDocuments(t *testing.T, base string) []clientDocument {
	t.Helper()
	docs := []clientDocument{
		{path: "/openapi.json", version: "31", public: true},
		{path: "/openapi-3.0.json", version: "30", public: true},
		{path: "/admin/v1/openapi.json", version: "31", prefix: "op"},
		{path: "/admin/v1/openapi-3.0.json", version: "30", prefix: "op"},
		{path: "/studio/v1/openapi.json", version: "31", prefix: "st"},
		{path: "/studio/v1/openapi-3.0.json", version: "30", prefix: "st"},
	}
	var out []clientDocument
	for _, d := range docs {
		req, err := http.NewRequest(http.MethodGet, base+d.path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+adminToken)
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, res.StatusCode, "%s: %s", d.path, body)
		var indented bytes.Buffer
		require.NoError(t, json.Indent(&indented, body, "", " "), d.path)
		d.raw = indented.Bytes()
		out = append(out, d)
	}
	return out
}

// ogenConfig generates clients only, with request validation, and skips nothing: an
// operation ogen cannot generate is an error.
const ogenConfig = `generator:
  features:
    disable_all: true
    enable: [paths/client, webhooks/client, client/request/validation]
`

// ogenLocation is where an ogen message points in the document: "file.json:line:column".
var ogenLocation = regexp.MustCompile(`\.json:(\d+):(\d+)`)

func generateOgen(t *testing.T, mod, spec string, doc []byte, pkg string) {
	t.Helper()
	cfg := filepath.Join(mod, "docs", "ogen.yml")
	require.NoError(t, os.WriteFile(cfg, []byte(ogenConfig), 0o644))
	cmd := exec.CommandContext(t.Context(), "go", "tool", "ogen", "-config", cfg, "-clean",
		"-package", pkg, "-target", filepath.Join(mod, pkg), spec)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	var problems []string
	for line := range strings.Lines(string(out)) {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "WARN") && !strings.HasPrefix(line, "ERROR") {
			continue
		}
		problems = append(problems, located(line, doc))
	}
	if err != nil {
		os.RemoveAll(filepath.Join(mod, pkg))
		t.Fatalf("ogen failed on %s: %v\n%s", filepath.Base(spec), err, shortLines(out, doc))
	}
	if len(problems) > 0 {
		// The client is still built and driven: the journeys may find more.
		t.Errorf("ogen warns about %s:\n%s", filepath.Base(spec), strings.Join(problems, "\n"))
	}
}

func generateOapiCodegen(t *testing.T, mod, spec, pkg string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(mod, pkg), 0o755))
	cmd := exec.CommandContext(t.Context(), "go", "tool", "oapi-codegen", "-generate", "types,client",
		"-package", pkg, "-o", filepath.Join(mod, pkg, "client.go"), spec)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if out = withoutDownloads(out); err != nil || len(bytes.TrimSpace(out)) > 0 {
		os.RemoveAll(filepath.Join(mod, pkg))
		t.Fatalf("oapi-codegen on %s: %v\n%s", filepath.Base(spec), err, out)
	}
}

// withoutDownloads drops the go command's "go: downloading …" lines from a tool's output: on a
// machine whose module cache does not hold the tool yet, the first run fetches it, which says
// nothing about the document.
func withoutDownloads(out []byte) []byte {
	var kept []byte
	for line := range bytes.Lines(out) {
		if !bytes.HasPrefix(line, []byte("go: downloading ")) {
			kept = append(kept, line...)
		}
	}
	return kept
}

// addJourney copies the journeys into package dir of the module, on the ogen client pkg.
func addJourney(t *testing.T, mod, pkg, dir string) {
	t.Helper()
	src, err := os.ReadFile("testdata/clientjourney/journey_test.go")
	require.NoError(t, err)
	src = bytes.ReplaceAll(src, []byte(`"rewardsclients/ogenapi"`), []byte(strconv.Quote("rewardsclients/"+pkg)))
	require.NoError(t, os.MkdirAll(filepath.Join(mod, dir), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(mod, dir, "journey_test.go"), src, 0o644))
}

// goIn runs the go command in the module and fails the test with its output when it fails.
func goIn(t *testing.T, mod string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", args...)
	cmd.Dir = mod
	cmd.Env = append(os.Environ(), "GOWORK=off", "REWARDS_JOURNEY="+filepath.Join(mod, "world.json"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// journeyWorld makes what the journeys need: a game with a coin and a coupon in its store, and
// a partner game with a funded wallet.
func journeyWorld(t *testing.T, p *partnerAPI) map[string]string {
	t.Helper()
	_, g, coin := p.shop("Journey Studio")
	r := p.admin("PUT", "/admin/v1/catalogue/brands/JOURNEY_CAFE", map[string]any{"name": "Journey Cafe", "categories": []string{}})
	require.Equal(t, 201, r.Status, string(r.Raw))
	r = p.admin("POST", "/admin/v1/catalogue/rewards", map[string]any{"type": "COUPON", "brandCode": "JOURNEY_CAFE",
		"name": "Free coffee", "mrp": 200, "sellingPrice": 150})
	require.Equal(t, 201, r.Status, string(r.Raw))
	coupon := r.Body["id"].(string)
	r = p.admin("POST", "/admin/v1/catalogue/rewards/"+coupon+"/codes", map[string]any{"codes": []map[string]any{
		{"code": "COFFEE-1"}, {"code": "COFFEE-2"}, {"code": "COFFEE-3"}, {"code": "COFFEE-4"}}})
	require.Equal(t, 201, r.Status, string(r.Raw))

	partner := p.game("WALLET", 2.5)
	r = p.credit(partner, 10000, "journey-funds")
	require.Equal(t, 201, r.Status, string(r.Raw))
	return map[string]string{"url": p.srv.URL, "apiKey": g.TestKey, "coinId": coin.ID.String(), "couponId": coupon,
		"partner": partner.key, "brand": "AMAZON"}
}

// located adds to an ogen message the JSON pointer of the place it names.
func located(line string, doc []byte) string {
	m := ogenLocation.FindStringSubmatch(line)
	if m == nil {
		return line
	}
	l, _ := strconv.Atoi(m[1])
	c, _ := strconv.Atoi(m[2])
	return line + "\n    at " + pointerAt(doc, offsetOf(doc, l, c))
}

// shortLines is a generator's output without its INFO lines, long lines cut and locations
// resolved.
func shortLines(out, doc []byte) string {
	var b strings.Builder
	for line := range strings.Lines(string(out)) {
		line = strings.TrimRight(line, "\n")
		if strings.HasPrefix(line, "INFO") {
			continue
		}
		if len(line) > 400 {
			line = line[:400] + "…"
		}
		b.WriteString(located(line, doc) + "\n")
	}
	return b.String()
}

// offsetOf is the byte offset of a 1-based line and column.
func offsetOf(doc []byte, line, col int) int64 {
	off := 0
	for range line - 1 {
		i := bytes.IndexByte(doc[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return int64(off + col - 1)
}

// pointerAt is the JSON pointer of the innermost value of doc that starts at or before offset.
func pointerAt(doc []byte, offset int64) string {
	type frame struct {
		object    bool
		key       string
		index     int
		expectKey bool
	}
	var stack []*frame
	pointer := func() string {
		var b strings.Builder
		for _, f := range stack {
			b.WriteByte('/')
			if f.object {
				b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(f.key))
			} else {
				b.WriteString(strconv.Itoa(f.index))
			}
		}
		return b.String()
	}
	advance := func() {
		if len(stack) == 0 {
			return
		}
		top := stack[len(stack)-1]
		if top.object {
			top.expectKey = true
		} else {
			top.index++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	best := ""
	for {
		// The offset before a token includes the separator before it; the token itself starts
		// after it, which is close enough to name the value a message points at.
		if dec.InputOffset() > offset {
			return best
		}
		tok, err := dec.Token()
		if err != nil {
			return best
		}
		if len(stack) > 0 {
			if top := stack[len(stack)-1]; top.object && top.expectKey {
				if key, ok := tok.(string); ok {
					top.key, top.expectKey = key, false
					best = pointer()
					continue
				}
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			best = pointer()
			stack = append(stack, &frame{object: tok == json.Delim('{'), expectKey: tok == json.Delim('{')})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			advance()
		default:
			best = pointer()
			advance()
		}
	}
}

// TestPointerAt: the locations of generator messages are named by JSON pointer.
func TestPointerAt(t *testing.T) {
	t.Parallel()
	var doc bytes.Buffer
	require.NoError(t, json.Indent(&doc, []byte(`{"paths":{"/a/b":{"get":{"parameters":[{"in":"query"},{"in":"header","name":"x"}]}}},"openapi":"3.1.0"}`), "", " "))
	at := func(text string) string {
		i := bytes.Index(doc.Bytes(), []byte(text))
		require.GreaterOrEqual(t, i, 0, text)
		line := bytes.Count(doc.Bytes()[:i], []byte("\n")) + 1
		col := i - bytes.LastIndexByte(doc.Bytes()[:i], '\n')
		return pointerAt(doc.Bytes(), offsetOf(doc.Bytes(), line, col))
	}
	require.Equal(t, "/paths/~1a~1b/get/parameters/1/name", at(`"name"`))
	require.Equal(t, "/paths/~1a~1b/get/parameters/0/in", at(`"query"`))
	require.Equal(t, "/openapi", at(`"3.1.0"`))
	require.Empty(t, pointerAt(doc.Bytes(), 0))
}
