package internal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// The recipes page (docs/recipes.md, from bench/recipes.md.in) may say
// which cell did better only through the placeholders bench/recipes.sh
// fills from the recipes' study.json (bench/recipes-page.py): issue 38
// found "pooling multiplies throughput" above direct 149.3 against
// PgBouncer 80.0 txn/s. These tests hold the template to that and the
// filled sentences to the comparison rows, without running a recipe.

// recipesPage runs bench/recipes-page.py with args and stdin; its exit
// status, stdout and stderr.
func recipesPage(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI needs python3 (bench/recipes-page.py): %v", err)
		}
		t.Skipf("python3 missing: %v", err)
	}
	cmd := exec.Command(py, append([]string{"../bench/recipes-page.py"}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

// TestRecipesTemplateStatesNoDirection: the template's prose names no
// direction of its own, and the check finds the sentence issue 38 found.
func TestRecipesTemplateStatesNoDirection(t *testing.T) {
	if code, out, errs := recipesPage(t, "", "check", "../bench/recipes.md.in"); code != 0 {
		t.Fatalf("bench/recipes.md.in: the check exited %d:\n%s%s", code, out, errs)
	}
	planted := filepath.Join(t.TempDir(), "recipes.md.in")
	page := "## Seed 004\n\nEvery transaction opens a new connection. Seed\n004's finding holds on one machine: pooling multiplies throughput and cuts\nthe connect time.\n\n@recipe seed004-per-txn\n\n" +
		"Seed 004 found \"pooling multiplies\nthroughput\", quoted, and `0.5x` in code, and {{vs r via=a->b query ops_per_s}} are not the page's own.\n"
	if err := os.WriteFile(planted, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := recipesPage(t, "", "check", planted)
	if code != 1 || !strings.Contains(out, planted+`:4: "multiplies"`) || !strings.Contains(out, planted+`:4: "cuts"`) {
		t.Fatalf("a template saying \"pooling multiplies throughput\": exit %d, %q; want 1 and line 4's \"multiplies\" and \"cuts\" named", code, out)
	}
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("want only the two words of line 4 found (quotes, code and placeholders are not the page's words), got %d:\n%s", n, out)
	}
}

// TestRecipesPlaceholdersFollowTheRows fills the placeholders from a study
// whose comparisons study.Compare made, and wants each sentence to say
// what its row says: the factor, the interval and the verdict.
func TestRecipesPlaceholdersFollowTheRows(t *testing.T) {
	out := t.TempDir()
	cell := func(via string, txnPerS ...float64) study.CellSummary {
		med := txnPerS[len(txnPerS)/2] // the median of the planted values
		o := study.OpStats{Name: "query", Kind: result.KindTxn, OpsPerS: med, Mean: 1000 / med,
			Reps: map[string][]float64{"ops_per_s": txnPerS}}
		return study.CellSummary{Label: "via=" + via, Settings: []study.Setting{{Key: "via", Value: via}}, Ops: []study.OpStats{o},
			Limits: []study.CellLimit{{Limit: result.Limit{Part: "pooler", Line: "PgBouncer CPU (one thread at 97% of a core)", ThisMachine: true}, Runs: 3}}}
	}
	write := func(name string, cells ...study.CellSummary) *study.Comparisons {
		s := &study.Summary{Workload: "connect-overhead", Repeat: len(cells[0].Ops[0].Reps["ops_per_s"]), Cells: cells}
		s.Comparisons = study.Compare(s)
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(out, name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(out, name, "study.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		return s.Comparisons
	}
	// issue 38's cells: direct 149.3, PgBouncer 80.0 txn/s, repetitions close
	slower := write("slower", cell("direct", 148.1, 149.3, 150.2), cell("pgbouncer", 79.0, 80.0, 81.5))
	// the same medians, repetitions spread wide: no verdict
	noisy := write("noisy", cell("direct", 60, 149.3, 260), cell("pgbouncer", 30, 80.0, 200))
	once := write("once", cell("direct", 149.3), cell("pgbouncer", 80.0))

	code, page, errs := recipesPage(t, "a {{vs slower via=direct->pgbouncer query ops_per_s}}.\nb {{vs noisy via=direct->pgbouncer query ops_per_s}}.\n"+
		"c {{vs once via=direct->pgbouncer query ops_per_s}}.\nd {{vs absent via=direct->pgbouncer query ops_per_s}}.\n@limits slower\n", "fill", out)
	if code != 0 {
		t.Fatalf("fill exited %d: %s", code, errs)
	}
	lines := strings.Split(page, "\n")
	st := func(c *study.Comparisons) *study.PairStats { return c.Axes[0].Rows[len(c.Axes[0].Rows)-2].Stats[0] } // ops/s
	for _, c := range []struct {
		line string
		cmp  *study.Comparisons
		want string
	}{
		{lines[0], slower, "worse"},
		{lines[1], noisy, "~"},
		{lines[2], once, "?"},
	} {
		ps := st(c.cmp)
		if ps.Verdict != c.want {
			t.Fatalf("planted cells: the row's verdict is %q, want %q: the planted figures no longer plant it", ps.Verdict, c.want)
		}
		want := fmt.Sprintf("0.54x (%.2fx to %.2fx", 1+ps.LowPct/100, 1+ps.HighPct/100)
		switch c.want {
		case "worse":
			want += ", 95% interval: worse)"
		case "~":
			want += ", p="
		case "?":
			want = "0.54x (?: a cell ran once"
		}
		if !strings.Contains(c.line, want) || strings.Contains(c.line, "better") {
			t.Errorf("filled %q, want %q from its row %+v", c.line, want, *ps)
		}
	}
	if !strings.Contains(lines[3], "recipe `absent` left no study.json") {
		t.Errorf("a recipe that did not run: %q", lines[3])
	}
	if want := "- `via=direct`: limited by: PgBouncer CPU (one thread at 97% of a core); it shared the machine's cores"; !strings.HasPrefix(lines[4], want) {
		t.Errorf("@limits: %q, want it to begin %q", lines[4], want)
	}
	// a placeholder naming a comparison the study has not is the
	// template's mistake: the page is not written
	if code, _, errs := recipesPage(t, "{{vs slower via=pgbouncer->direct query ops_per_s}}\n", "fill", out); code != 1 || !strings.Contains(errs, "no such comparison") {
		t.Errorf("a comparison the study lacks: exit %d, %q; want 1 and \"no such comparison\"", code, errs)
	}
}

// TestRecipesPageFilled: the committed page has every placeholder filled.
func TestRecipesPageFilled(t *testing.T) {
	b, err := os.ReadFile("../docs/recipes.md")
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "{{") || strings.HasPrefix(line, "@limits") || strings.HasPrefix(line, "@recipe") {
			t.Errorf("docs/recipes.md:%d: an unfilled placeholder: %q (bench/recipes.sh writes the page)", i+1, line)
		}
	}
}

// TestRecipesSpliceOneSection: RECIPES_SECTION=1 bash bench/recipes.sh
// NAME writes again only the template's sections that hold NAME's
// recipe, each with its note of when and on what it ran, and leaves the
// rest of the page as it was: a section the page lacks goes where the
// template puts it, one it has is replaced whole.
func TestRecipesSpliceOneSection(t *testing.T) {
	dir := t.TempDir()
	tmpl, page := filepath.Join(dir, "recipes.md.in"), filepath.Join(dir, "recipes.md")
	write := func(path, s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(tmpl, "# Recipes\n\n@generated\n\n## A\n\n@recipe a\n\n## B\n\ntext of b\n\n@recipe b\n\n## C\n\n@recipe c\n")
	old := "# Recipes\n\nGenerated once.\n\n## A\n\nold a\n\n## C\n\n```sh\n## not a heading\n```\nold c\n"
	write(page, old)
	fresh := "# Recipes\n\nGenerated again.\n\n## A\n\nnew a\n\n## B\n\ntext of b\n\nnew b\n\n## C\n\nnew c\n"
	code, got, errs := recipesPage(t, fresh, "splice", page, tmpl, "Ran alone.", "b")
	want := "# Recipes\n\nGenerated once.\n\n## A\n\nold a\n\n## B\n\nRan alone.\n\ntext of b\n\nnew b\n\n## C\n\n```sh\n## not a heading\n```\nold c\n"
	if code != 0 || got != want {
		t.Fatalf("splice b: exit %d (%s), page:\n%s\nwant:\n%s", code, errs, got, want)
	}
	write(page, got)
	code, got, errs = recipesPage(t, fresh, "splice", page, tmpl, "Ran alone again.", "c", "b")
	want = "# Recipes\n\nGenerated once.\n\n## A\n\nold a\n\n## B\n\nRan alone again.\n\ntext of b\n\nnew b\n\n## C\n\nRan alone again.\n\nnew c\n"
	if code != 0 || got != want {
		t.Fatalf("splice c and b: exit %d (%s), page:\n%s\nwant:\n%s", code, errs, got, want)
	}
	if code, _, errs := recipesPage(t, fresh, "splice", page, tmpl, "x", "nope"); code != 1 || !strings.Contains(errs, "has no @recipe nope") {
		t.Errorf("a recipe the template lacks: exit %d, %q; want 1 and its name", code, errs)
	}
}
