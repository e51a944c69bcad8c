// Package docs_test checks that docs/design.md's import chain is the
// code's: the block between the markers "<!-- imports:begin -->" and
// "<!-- imports:end -->" lists, per package, the packages of the module
// it imports (internal/ ones left out), read from the sources with
// go/parser. `go test ./docs -update` rewrites the block.
package docs_test

import (
	"flag"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/polluxsim/polluxsim/"

var update = flag.Bool("update", false, "rewrite docs/design.md's import block")

// imports reads every non-test Go file of the module's packages (not
// examples/, internal/ or testdata) and returns, per package, the module's
// packages it imports (internal/ left out).
func imports(t *testing.T, root string) map[string][]string {
	t.Helper()
	deps := map[string]map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || base == "testdata" || base == "python" || rel == "examples" || rel == "internal" || strings.HasPrefix(rel, "internal/") || strings.Contains(rel, "/internal/") || rel == "docs") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(rel))
		if deps[pkg] == nil {
			deps[pkg] = map[string]bool{}
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if q, ok := strings.CutPrefix(p, module); ok && !strings.HasPrefix(q, "internal/") && !strings.Contains(q, "/internal/") {
				deps[pkg][q] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for p, ds := range deps {
		var l []string
		for d := range ds {
			l = append(l, d)
		}
		sort.Strings(l)
		out[p] = l
	}
	return out
}

// block is the import block as design.md holds it: the packages in order,
// each with what it imports; policies/<name> and the policy protocol are
// summarised.
func block(deps map[string][]string) string {
	var pkgs []string
	for p := range deps {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var b strings.Builder
	b.WriteString("```\n")
	for _, p := range pkgs {
		ds := deps[p]
		if len(ds) == 0 {
			ds = []string{"(nothing of ours)"}
		}
		b.WriteString(p + " → " + strings.Join(ds, ", ") + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

func TestDesignImports(t *testing.T) {
	path := "design.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	const begin, end = "<!-- imports:begin -->\n", "<!-- imports:end -->"
	doc := string(data)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no block between %q and %q", path, begin, end)
	}
	want := block(imports(t, ".."))
	got := doc[i+len(begin) : j]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(doc[:i+len(begin)]+want+doc[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/design.md's import block differs from the code's imports (go test ./docs -update rewrites it):\n%s", want)
}

// The rules the layout states hold: the spec of a run names no policy,
// the output tables pull in no policy, the CLI imports none (the
// conformance suite, which names none, aside).
func TestDependencyRules(t *testing.T) {
	deps := imports(t, "..")
	closure := func(p string) map[string]bool {
		seen := map[string]bool{}
		var walk func(string)
		walk = func(p string) {
			for _, d := range deps[p] {
				if !seen[d] {
					seen[d] = true
					walk(d)
				}
			}
		}
		walk(p)
		return seen
	}
	for _, p := range []string{"experiments/runspec", "experiments/outputs"} {
		for d := range closure(p) {
			if strings.HasPrefix(d, "policies/") && d != "policies/protocol" {
				t.Errorf("%s depends on %s: it must know the policies.Policy interface only", p, d)
			}
		}
	}
	// The conformance suite is no policy and names none: the CLI's
	// conformance command imports it.
	for d := range closure("policies/conformance") {
		if strings.HasPrefix(d, "policies/") {
			t.Errorf("policies/conformance depends on %s: the suite names no policy", d)
		}
	}
	for _, p := range []string{"cmd/polluxsim", "cmd/polluxsim/app"} {
		for _, d := range deps[p] {
			if strings.HasPrefix(d, "policies/") && d != "policies/conformance" {
				t.Errorf("%s imports %s: the command line names no policy", p, d)
			}
		}
	}
}
