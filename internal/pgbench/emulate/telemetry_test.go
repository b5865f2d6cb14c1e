package emulate_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPgbenchTelemetry: `txnbench pgbench --telemetry off` watches
// nothing beside the run (issue 31: the client measured should do only
// the clients' work), on (the default) does, and anything else is refused
// with the choices.
func TestPgbenchTelemetry(t *testing.T) {
	t.Parallel()
	e := newPgbenchEnv(t)
	for _, c := range []struct {
		flag string
		want bool // a telemetry section in the JSON result
	}{{"", true}, {"--telemetry=off", false}, {"--telemetry=on", true}} {
		out := filepath.Join(e.dir, "r.json")
		args := []string{"-n", "-S", "-t", "5", "--json", out, e.url}
		if c.flag != "" {
			args = append([]string{c.flag}, args...)
		}
		code, stdout, stderr := e.txnbench(t, args...)
		if code != 0 || !strings.Contains(stdout, "number of transactions actually processed: 5/5") {
			t.Fatalf("%q: exit %d\n%s\n%s", c.flag, code, stdout, stderr)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var r struct{ Telemetry json.RawMessage }
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatal(err)
		}
		if got := r.Telemetry != nil; got != c.want {
			t.Errorf("%q: telemetry in the result %v, want %v", c.flag, got, c.want)
		}
	}
	code, _, stderr := e.txnbench(t, "--telemetry=maybe", "-t", "1", e.url)
	if code != 1 || !strings.Contains(stderr, `invalid --telemetry "maybe": choose on or off`) {
		t.Errorf("--telemetry=maybe: exit %d\n%s", code, stderr)
	}
}
