package app_test

import (
	"errors"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// module is this module's import path.
const module = "github.com/rewardsco/rewards"

// importRule forbids the files below dir (relative to the module root) to import any path
// with one of the prefixes.
type importRule struct {
	dir       string
	forbidden []string
	why       string
	// codeOnly leaves test files out: a fake's tests may check it against the real adapter.
	codeOnly bool
}

var importRules = []importRule{
	{dir: "core", forbidden: []string{
		"github.com/jackc/pgx", module + "/adapters", "github.com/danielgtaylor/huma",
		"github.com/go-chi/chi", "net/http", "github.com/riverqueue",
	}, why: "core is pure: it declares ports and never imports storage, HTTP or job libraries, nor the adapters"},
	{dir: "core", forbidden: []string{module + "/app"}, why: "nothing below app/ imports the composition root"},
	{dir: "adapters", forbidden: []string{module + "/app"}, why: "nothing below app/ imports the composition root"},
	{dir: "fakes", forbidden: []string{module + "/app", module + "/adapters", module + "/core"},
		why: "fakes stand for outside systems and share no code with the service", codeOnly: true},
}

// TestArchitecture keeps the hexagon's arrows pointing inwards: it reads the imports of every Go
// file (tests included) below each rule's folder and fails on a forbidden one.
func TestArchitecture(t *testing.T) {
	t.Parallel()
	for _, v := range checkImports(t, "..", importRules) {
		t.Error(v)
	}
}

// checkImports returns one line per forbidden import found below root.
func checkImports(t *testing.T, root string, rules []importRule) []string {
	t.Helper()
	var violations []string
	for _, rule := range rules {
		err := filepath.WalkDir(filepath.Join(root, rule.dir), func(path string, d fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) && path == filepath.Join(root, rule.dir) {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || (rule.codeOnly && strings.HasSuffix(path, "_test.go")) {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				for _, bad := range rule.forbidden {
					if p == bad || strings.HasPrefix(p, bad+"/") {
						rel, _ := filepath.Rel(root, path)
						violations = append(violations, rel+" imports "+p+": "+rule.why)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("read %s: %v", rule.dir, err)
		}
	}
	return violations
}

// The check itself must be able to fail: a core file importing pgx, and an adapter importing
// app, are both reported.
func TestArchitectureCheckCatchesForbiddenImports(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, src string) {
		t.Helper()
		path := filepath.Join(root, rel)
		if err := osMkdirAll(filepath.Dir(path)); err != nil {
			t.Fatal(err)
		}
		if err := osWriteFile(path, src); err != nil {
			t.Fatal(err)
		}
	}
	write("core/thing/thing.go", "package thing\nimport _ \"github.com/jackc/pgx/v5\"\n")
	write("adapters/x/x.go", "package x\nimport _ \""+module+"/app\"\n")
	write("core/ok/ok.go", "package ok\nimport _ \"context\"\n")
	v := checkImports(t, root, importRules)
	if len(v) != 2 || !strings.Contains(v[0]+v[1], "core/thing/thing.go imports github.com/jackc/pgx/v5") ||
		!strings.Contains(v[0]+v[1], "adapters/x/x.go imports "+module+"/app") {
		t.Fatalf("want the two forbidden imports reported, got %q", v)
	}
}

func osMkdirAll(dir string) error            { return os.MkdirAll(dir, 0o755) }
func osWriteFile(path, content string) error { return os.WriteFile(path, []byte(content), 0o644) }
