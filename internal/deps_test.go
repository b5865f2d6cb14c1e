package internal_test

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// module is the import path every internal package's path begins with.
const module = "github.com/txnbench/txnbench/internal/"

// layerDoc is the page whose "Layers" table is the allow-list.
const layerDoc = "../docs/ARCHITECTURE.md"

// driverFree are the packages that read, compare and show results, and
// history, which checks a recorded history (`txnbench check --history`
// needs no database): they reach no database by any path, so a tool made
// of them links no driver.
var driverFree = []string{"result", "report", "diff", "study", "suite", "live", "history", "dashboard"}

// databaseParts are what driverFree may not reach: internal packages (and
// those under them) and driver modules.
var databaseParts = []string{"target", "localdb", "github.com/jackc/pgx", "modernc.org/sqlite", "github.com/go-sql-driver/mysql"}

// driverParts are what the tests of driverFree may not reach: the
// drivers, what registers them and what starts servers (internal/testutil
// does all three; internal/testutil/plain none).
var driverParts = []string{"target/pg", "target/sqlite", "target/mysql", "target/drivers", "localdb", "github.com/jackc/pgx", "modernc.org/sqlite", "github.com/go-sql-driver/mysql"}

// testsOf is the key of a package's test files in an import graph and
// the name of their row: "pkg (tests)".
func testsOf(pkg string) string { return pkg + " (tests)" }

// row is one line of the layers table.
type row struct {
	layer   int
	label   string   // the layer's name: "leaves", "target", ...
	pkg     string   // a package under internal/, or DIR/* for those directly under DIR; "pkg (tests)" for its test files
	imports []string // internal packages it may import
	modules []string // modules outside the standard library it may import
}

// TestDepsFollowLayers holds every internal package (its files, and its
// test files) to the layers table of docs/ARCHITECTURE.md, as cockroach's
// TestDepWhitelist does: an import the table does not allow, an import of
// a layer above the importer's, a package without a row, or a driver-free
// package reaching a database (its tests: a driver) fails it.
func TestDepsFollowLayers(t *testing.T) {
	rows := readLayers(t)
	graph, err := importGraph(".")
	if err != nil {
		t.Fatal(err)
	}
	if len(graph) < 30 {
		t.Fatalf("found %d packages under internal/: the walk missed them", len(graph))
	}
	for _, e := range checkDeps(rows, graph) {
		t.Error(e)
	}
}

// TestDepsPlantedEdges plants forbidden edges in the real import graph:
// each must fail the check, naming the package and what it imported;
// an allowed edge planted the same way must not.
func TestDepsPlantedEdges(t *testing.T) {
	rows := readLayers(t)
	real, err := importGraph(".")
	if err != nil {
		t.Fatal(err)
	}
	if errs := checkDeps(rows, real); len(errs) > 0 {
		t.Skipf("the tree itself breaks the table (TestDepsFollowLayers says how): %v", errs[0])
	}
	for _, c := range []struct {
		pkg, imp string
		want     string // in the one error; "" for an allowed edge
	}{
		{"telemetry", module + "target/pg", "telemetry imports target/pg"},
		{"job", module + "target/pg", "job imports target/pg"},
		{"pgbench/emulate", module + "target/pg", "pgbench/emulate imports target/pg"},
		{"target/sqlite", module + "localdb", "target/sqlite imports localdb"},
		{"study", module + "report", "study imports report"},
		{"result", module + "target", "result imports target"},
		{"workload/tpcc", module + "localdb", "workload/tpcc imports localdb"},
		{"report", "github.com/jackc/pgx/v5/pgconn", "report imports github.com/jackc/pgx/v5/pgconn"},
		{"telemetry", "modernc.org/sqlite", "telemetry imports modernc.org/sqlite"},
		{"scratch", "fmt", "scratch has no row"},
		{"pooler", module + "target", "pooler imports target"},
		{"job", module + "pooler", ""},
		{"report", module + "diff", ""},
		{"target/pg", "github.com/jackc/pgx/v5/pgxpool", ""},
		{"cli", module + "target/pg", "cli imports target/pg"},
		{"cli", module + "target/mysql", "cli imports target/mysql"},
		{testsOf("cli"), module + "target/pg", "cli (tests) imports target/pg"},
		{testsOf("report"), module + "testutil", "report (tests) imports testutil"},
		{testsOf("workload/tpcc"), module + "cli", "workload/tpcc (tests) imports cli"},
		{"cli", module + "target/drivers", "cli imports target/drivers"}, // it takes the drivers through engine/engines
		{"cli", module + "engine/engines", ""},
		{testsOf("job"), module + "testutil", ""},
	} {
		errs := checkDeps(rows, planted(real, c.pkg, c.imp))
		switch {
		case c.want == "" && len(errs) > 0:
			t.Errorf("planted %s -> %s, allowed, failed: %v", c.pkg, c.imp, errs)
		case c.want != "" && !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, c.want) }):
			t.Errorf("planted %s -> %s: errors %q, want one saying %q", c.pkg, c.imp, errs, c.want)
		}
	}
	// The transitive rule on its own: with a table that lets live import
	// runner, live reaches target through it, and that still fails.
	loose := slices.Clone(rows)
	for i := range loose {
		if loose[i].pkg == "live" {
			loose[i].imports = append(slices.Clone(loose[i].imports), "runner")
		}
	}
	errs := checkDeps(loose, planted(real, "live", module+"runner"))
	if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, "live reaches target through live -> runner -> ") }) {
		t.Errorf("live -> runner -> target with a table allowing each edge: errors %q, want live's path to target", errs)
	}
	// The layers on their own: with a table that lets stats import job,
	// the import of a layer above still fails.
	loose = slices.Clone(rows)
	for i := range loose {
		if loose[i].pkg == "stats" {
			loose[i].imports = append(slices.Clone(loose[i].imports), "job")
		}
	}
	errs = checkDeps(loose, planted(real, "stats", module+"job"))
	if !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, "stats (layer 0) imports job of layer 3") }) {
		t.Errorf("stats -> job with a table allowing the edge: errors %q, want the layers named", errs)
	}
}

// planted is a copy of graph in which pkg imports imp too.
func planted(graph map[string][]string, pkg, imp string) map[string][]string {
	out := make(map[string][]string, len(graph)+1)
	for p, imps := range graph {
		out[p] = slices.Clone(imps)
	}
	out[pkg] = append(out[pkg], imp)
	return out
}

// TestLayersTableReads keeps the table's own rules: each row's imports are
// in its layer or below, each exact row names a package that exists and
// lists only what it imports, and a leaf imports no internal package.
func TestLayersTableReads(t *testing.T) {
	rows := readLayers(t)
	graph, err := importGraph(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if !strings.HasSuffix(strings.TrimSuffix(r.pkg, " (tests)"), "/*") {
			if _, ok := graph[r.pkg]; !ok {
				t.Errorf("the layers table names %s, which is no package (or test files) under internal/", r.pkg)
			}
		}
		if imps, ok := graph[r.pkg]; ok {
			for _, imp := range r.imports {
				if !slices.Contains(imps, module+imp) {
					t.Errorf("%s may import %s and does not: the row lists exactly what it imports", r.pkg, imp)
				}
			}
		}
		if r.label == "leaves" && len(r.imports) > 0 {
			t.Errorf("%s is labelled a leaf and imports %v: relabel it", r.pkg, r.imports)
		}
		for _, imp := range r.imports {
			ir := rowOf(rows, imp)
			if ir == nil {
				t.Errorf("%s may import %s, which has no row", r.pkg, imp)
			} else if ir.layer > r.layer {
				t.Errorf("%s (layer %d) may import %s of layer %d, above it", r.pkg, r.layer, imp, ir.layer)
			}
		}
	}
}

// checkDeps returns what in graph (package -> its imports) the table
// does not allow, one line each.
func checkDeps(rows []row, graph map[string][]string) []string {
	var errs []string
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		r, imports, modules := allowed(rows, p)
		if r == nil {
			errs = append(errs, fmt.Sprintf("%s has no row in the layers table of docs/ARCHITECTURE.md: add one", p))
			continue
		}
		for _, imp := range graph[p] {
			if name, ok := strings.CutPrefix(imp, module); ok {
				if !slices.Contains(imports, name) {
					errs = append(errs, fmt.Sprintf("%s imports %s: its row allows %v", p, name, imports))
				} else if ir := rowOf(rows, name); ir != nil && ir.layer > r.layer {
					errs = append(errs, fmt.Sprintf("%s (layer %d) imports %s of layer %d: a package imports only its layer and those below", p, r.layer, name, ir.layer))
				}
				continue
			}
			if std(imp) {
				continue
			}
			if !slices.ContainsFunc(modules, func(m string) bool { return under(imp, m) }) {
				errs = append(errs, fmt.Sprintf("%s imports %s: its row allows the modules %v", p, imp, modules))
			}
		}
	}
	for _, p := range driverFree {
		for _, part := range databaseParts {
			if path := reach(graph, p, part); path != nil {
				errs = append(errs, fmt.Sprintf("%s reaches %s through %s: give it result's types instead", p, part, strings.Join(path, " -> ")))
			}
		}
		for _, part := range driverParts {
			if path := reach(graph, testsOf(p), part); path != nil {
				errs = append(errs, fmt.Sprintf("%s reaches %s through %s: use internal/testutil/plain", testsOf(p), part, strings.Join(path, " -> ")))
			}
		}
	}
	return errs
}

// allowed is the row that places p (a package, or "pkg (tests)": its
// tests' own row, else the package's) and what p may import: its row's,
// and for test files their package's row's too and the package itself.
func allowed(rows []row, p string) (r *row, imports, modules []string) {
	pkg, tests := strings.CutSuffix(p, " (tests)")
	own := rowOf(rows, pkg)
	if !tests {
		if own == nil {
			return nil, nil, nil
		}
		return own, own.imports, own.modules
	}
	r = rowOf(rows, p)
	if r == nil {
		r = own
	}
	if r == nil {
		return nil, nil, nil
	}
	imports, modules = append([]string{pkg}, r.imports...), r.modules
	if own != nil && own != r {
		imports, modules = append(imports, own.imports...), append(slices.Clone(modules), own.modules...)
	}
	return r, imports, modules
}

// reach is a path of imports from package from to part (an internal
// package or one under it, or a module), or nil.
func reach(graph map[string][]string, from, part string) []string {
	seen := map[string]bool{}
	var walk func(p string) []string
	walk = func(p string) []string {
		if seen[p] {
			return nil
		}
		seen[p] = true
		for _, imp := range graph[p] {
			name, internal := strings.CutPrefix(imp, module)
			if !internal {
				if under(imp, part) {
					return []string{p, imp}
				}
				continue
			}
			if under(name, part) {
				return []string{p, name}
			}
			if rest := walk(name); rest != nil {
				return append([]string{p}, rest...)
			}
		}
		return nil
	}
	return walk(from)
}

// under reports whether path is p or below it.
func under(path, p string) bool { return path == p || strings.HasPrefix(path, p+"/") }

// std reports whether an import path is the standard library's (its first
// element has no dot).
func std(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

// rowOf is pkg's row: its own, else DIR/* for a package directly under
// DIR ("DIR/* (tests)" for "pkg (tests)"); nil when it has none.
func rowOf(rows []row, pkg string) *row {
	for i := range rows {
		if rows[i].pkg == pkg {
			return &rows[i]
		}
	}
	name, tests := strings.CutSuffix(pkg, " (tests)")
	if i := strings.LastIndex(name, "/"); i > 0 {
		dir := name[:i] + "/*"
		if tests {
			dir = testsOf(dir)
		}
		for i := range rows {
			if rows[i].pkg == dir {
				return &rows[i]
			}
		}
	}
	return nil
}

// importGraph maps each package under root (internal/, as paths relative
// to it) to the imports of its non-test Go files, and "pkg (tests)" to
// those of its test files (the package itself left out), build tags
// ignored (a file for another system is held to the table too).
func importGraph(root string) (map[string][]string, error) {
	graph := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == root {
			return nil // this test's own files
		}
		key := pkg
		if strings.HasSuffix(path, "_test.go") {
			key = testsOf(pkg)
		}
		for _, is := range f.Imports {
			imp, err := strconv.Unquote(is.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if imp != module+pkg && !slices.Contains(graph[key], imp) {
				graph[key] = append(graph[key], imp)
			}
		}
		if _, ok := graph[key]; !ok {
			graph[key] = nil
		}
		return nil
	})
	return graph, err
}

var (
	layerRE = regexp.MustCompile(`^(\d+)\b`)
	nameRE  = regexp.MustCompile("`([^`]+)`")
)

// readLayers reads the rows of the table under "## Layers" in
// docs/ARCHITECTURE.md.
func readLayers(t *testing.T) []row {
	t.Helper()
	b, err := os.ReadFile(layerDoc)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseLayers(string(b))
	if err != nil {
		t.Fatalf("%s: %v", layerDoc, err)
	}
	return rows
}

// parseLayers reads the layers table of a page: the table after the
// "## Layers" heading, one package a row: | layer | `pkg` | `imp`, ... |
// `module`, ... | ("—" for none).
func parseLayers(page string) ([]row, error) {
	_, sec, ok := strings.Cut(page, "\n## Layers\n")
	if !ok {
		return nil, fmt.Errorf("no \"## Layers\" section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var rows []row
	seen := map[string]bool{}
	for _, line := range strings.Split(sec, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if len(cells) != 4 {
			return nil, fmt.Errorf("row %q: want 4 cells, layer | package | may import | modules", line)
		}
		m := layerRE.FindStringSubmatch(strings.TrimSpace(cells[0]))
		if m == nil {
			continue // the header and its rule
		}
		label := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(cells[0]), m[1]))
		n, _ := strconv.Atoi(m[1])
		names := func(cell string) []string {
			var out []string
			for _, m := range nameRE.FindAllStringSubmatch(cell, -1) {
				out = append(out, m[1])
			}
			return out
		}
		pkg := names(cells[1])
		if len(pkg) != 1 {
			return nil, fmt.Errorf("row %q: want one package", line)
		}
		if strings.Contains(cells[1], "(tests)") {
			pkg[0] = testsOf(pkg[0])
		}
		if slices.Contains(names(cells[2]), "*") {
			return nil, fmt.Errorf("row %q: list what %s imports, not *", line, pkg[0])
		}
		if seen[pkg[0]] {
			return nil, fmt.Errorf("%s has two rows", pkg[0])
		}
		seen[pkg[0]] = true
		rows = append(rows, row{layer: n, label: label, pkg: pkg[0], imports: names(cells[2]), modules: names(cells[3])})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("the Layers section holds no table")
	}
	return rows, nil
}
