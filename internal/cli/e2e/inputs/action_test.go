package inputs

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
	"gopkg.in/yaml.v3"
)

// actionFile is what action.yml says that this test runs.
type actionFile struct {
	Inputs map[string]struct {
		Default string `yaml:"default"`
	} `yaml:"inputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []struct {
			Name  string            `yaml:"name"`
			Shell string            `yaml:"shell"`
			Env   map[string]string `yaml:"env"`
			Run   string            `yaml:"run"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

// runAction runs action.yml's steps as GitHub's runner would (bash -eo
// pipefail, ${{ inputs.X }} from inputs or the defaults, GITHUB_* files
// in dir), with the test binary as txnbench on PATH, and returns the exit
// status of the first step that failed (0 when none did) and the job
// summary.
func runAction(t *testing.T, dir string, inputs map[string]string) (code int, summary string) {
	t.Helper()
	b := clitest.Read(t, clitest.Repo(t, "action.yml"))
	var act actionFile
	if err := yaml.Unmarshal(b, &act); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if act.Runs.Using != "composite" {
		t.Fatalf("action.yml runs using %q, want composite", act.Runs.Using)
	}
	bin := filepath.Join(dir, "bin")
	os.MkdirAll(bin, 0o755)
	wrapper := "#!/bin/sh\nTXNBENCH_CLI_MAIN=1 exec " + os.Args[0] + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "txnbench"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	summaryFile := filepath.Join(dir, "summary.md")
	os.WriteFile(summaryFile, nil, 0o644)
	input := regexp.MustCompile(`\$\{\{\s*inputs\.([a-z-]+)\s*\}\}`)
	for _, st := range act.Runs.Steps {
		if st.Run == "" {
			continue
		}
		if st.Shell != "bash" {
			t.Fatalf("step %q: shell %q; a composite action's step needs shell: bash", st.Name, st.Shell)
		}
		cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", st.Run)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "GITHUB_STEP_SUMMARY="+summaryFile,
			"GITHUB_PATH="+filepath.Join(dir, "path"), "GITHUB_OUTPUT="+filepath.Join(dir, "output"), "RUNNER_TEMP="+dir)
		for k, v := range st.Env {
			v = input.ReplaceAllStringFunc(v, func(m string) string {
				name := input.FindStringSubmatch(m)[1]
				if v, ok := inputs[name]; ok {
					return v
				}
				in, ok := act.Inputs[name]
				if !ok {
					t.Fatalf("step %q uses input %s, which action.yml does not declare", st.Name, name)
				}
				return in.Default
			})
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); ok {
			s, _ := os.ReadFile(summaryFile)
			t.Logf("step %q exited %d:\n%s", st.Name, ee.ExitCode(), out)
			return ee.ExitCode(), string(s)
		} else if err != nil {
			t.Fatal(err)
		}
	}
	s, _ := os.ReadFile(summaryFile)
	return 0, string(s)
}

// TestAction: the composite action (action.yml) runs a suite tier with
// the locally built txnbench (install: false), makes the first run the
// baseline, passes a second run compared with it (exit 0, the diff in the
// job summary as Markdown), and fails with diff's 4 against a baseline
// doctored to be 100 times faster. Before action.yml and diff --markdown
// existed it failed reading action.yml.
func TestAction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	suite := `name = "ci"
[[scenario]]
name = "train-events-sqlite"
workload = "train-events"
tiers = ["smoke"]
[scenario.flags]
db = "sqlite:"
clients = 1
iterations = 100
rows = 200
delay = "0s"
think-min = "0s"
think-max = "0s"
telemetry = "off"
seed = 7
`
	testutil.WriteFile(t, dir, "suite.toml", suite)
	in := map[string]string{"install": "false", "suite": "suite.toml", "baseline": "base", "out": "base",
		// two small SQLite runs differ by more than diff's default
		// thresholds: the gate is what is tested, not the noise (100
		// iterations: 100 samples per op, the fewest diff compares a
		// p95 of, widening a latency's threshold by sqrt(300/100))
		"diff-args": "--threshold 400"}
	in["baseline"] = "missing" // the first run: no baseline yet
	if code, summary := runAction(t, dir, in); code != 0 || !strings.Contains(summary, "no baseline") {
		t.Fatalf("the first run: exit %d, summary %q; want 0 and no baseline", code, summary)
	}
	in["baseline"], in["out"] = "base", "new"
	code, summary := runAction(t, dir, in)
	if code != 0 || !strings.Contains(summary, "### txnbench diff: no regressions") || !strings.Contains(plain.Squeeze(summary), "| metric | base | new |") {
		t.Fatalf("compared with the baseline: exit %d, summary:\n%s\nwant exit 0 and the Markdown diff", code, summary)
	}

	// Plant a regression: the baseline's latencies were a hundredth of
	// what they were.
	err := filepath.WalkDir(filepath.Join(dir, "base"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || m["ops"] == nil {
			return nil
		}
		for _, op := range m["ops"].([]any) {
			o := op.(map[string]any)
			for _, k := range []string{"mean_ms", "p50_ms", "p95_ms", "p99_ms"} {
				if v, ok := o[k].(float64); ok {
					o[k] = v / 100
				}
			}
		}
		b, _ = json.Marshal(m)
		return os.WriteFile(p, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	os.RemoveAll(filepath.Join(dir, "new"))
	code, summary = runAction(t, dir, in)
	if code != exitcode.Regression || !strings.Contains(summary, "**WORSE**") {
		t.Fatalf("against a doctored baseline: exit %d, summary:\n%s\nwant exit %d and a WORSE verdict", code, summary, exitcode.Regression)
	}
}

// TestCIDocsWorkFromACheckout: until the first release nothing is
// published to install from (no module, no tag), so docs/ci.md shows the
// action used by its path from a checkout, with txnbench built there and
// install: false: that snippet's step names only inputs action.yml
// declares and a suite that exists, after a step that builds ./cmd/txnbench.
// README.md and docs/ci.md, which name the published paths for later, say
// that they hold only from the first release. Before, both named
// `@latest` and `txnbench/txnbench@v1` as if they existed.
func TestCIDocsWorkFromACheckout(t *testing.T) {
	var act actionFile
	b := clitest.Read(t, clitest.Repo(t, "action.yml"))
	if err := yaml.Unmarshal(b, &act); err != nil {
		t.Fatal(err)
	}
	doc := clitest.Read(t, clitest.Repo(t, "docs/ci.md"))
	_, section, ok := strings.Cut(string(doc), "\n## Until the first release\n")
	block := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	if !ok || block == nil {
		t.Fatal("docs/ci.md has no \"Until the first release\" section with a workflow")
	}
	var job struct {
		Steps []struct {
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	}
	if err := yaml.Unmarshal([]byte(block[1]), &job); err != nil {
		t.Fatalf("docs/ci.md's workflow: %v", err)
	}
	built, found := false, false
	for _, st := range job.Steps {
		built = built || strings.Contains(st.Run, "go install ./cmd/txnbench")
		if st.Uses != "./" {
			continue
		}
		if !built || st.With["install"] != "false" {
			t.Errorf("uses: ./ without txnbench built from the checkout before it and install: false: %+v", st)
		}
		for k := range st.With {
			if _, ok := act.Inputs[k]; !ok {
				t.Errorf("docs/ci.md gives the action input %q, which action.yml does not declare", k)
			}
		}
		if _, err := os.Stat(clitest.Repo(t, st.With["suite"])); err != nil {
			t.Errorf("docs/ci.md's suite: %v", err)
		}
		found = true
	}
	if !found {
		t.Error("docs/ci.md's workflow has no step using the action by its path (uses: ./)")
	}
	for _, f := range []string{"README.md", "docs/ci.md"} {
		text := clitest.Read(t, clitest.Repo(t, f))
		if regexp.MustCompile(`cmd/txnbench@|txnbench/txnbench@`).Match(text) && !strings.Contains(string(text), "first release") {
			t.Errorf("%s names a published module or tag without saying it holds only from the first release", f)
		}
	}
}
