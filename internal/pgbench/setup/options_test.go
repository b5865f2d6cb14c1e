package setup_test

import (
	"bytes"
	"math"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/setup"
	"github.com/txnbench/txnbench/internal/testutil"
)

// validationCases pair pgbench -i arguments with the Options (or the
// ParseInt call) a command line would give, and pgbench's error lines.
var validationCases = []struct {
	args []string
	err  func() error
	want string
}{
	{[]string{"-I", "dtx"}, optErr(func(o *setup.Options) { o.Steps = "dtx" }),
		"pgbench: error: unrecognized initialization step \"x\"\npgbench: detail: Allowed step characters are: \"dtgGvpf\".\n"},
	{[]string{"-I", ""}, optErr(func(o *setup.Options) { o.Steps = "" }),
		"pgbench: error: no initialization steps specified\n"},
	{[]string{"--partitions", "-1"}, optErr(func(o *setup.Options) { o.Partitions = -1 }),
		"pgbench: error: --partitions must be in range 0..2147483647\n"},
	{[]string{"--partitions", "x"}, parseErr("x", "--partitions", 0, math.MaxInt32),
		"pgbench: error: invalid value \"x\" for option --partitions\n"},
	{[]string{"--partition-method", "range"}, optErr(func(o *setup.Options) { o.PartitionMethod = "range" }),
		"pgbench: error: --partition-method requires greater than zero --partitions\n"},
	{[]string{"--partition-method", "foo", "--partitions", "2"}, optErr(func(o *setup.Options) { o.PartitionMethod = "foo"; o.Partitions = 2 }),
		"pgbench: error: invalid partition method, expecting \"range\" or \"hash\", got: \"foo\"\n"},
	{[]string{"-F", "5"}, optErr(func(o *setup.Options) { o.FillFactor = 5 }),
		"pgbench: error: -F/--fillfactor must be in range 10..100\n"},
	{[]string{"-F", "101"}, parseErr("101", "-F/--fillfactor", 10, 100),
		"pgbench: error: -F/--fillfactor must be in range 10..100\n"},
	{[]string{"-F", "8x"}, parseErr("8x", "-F/--fillfactor", 10, 100),
		"pgbench: error: invalid value \"8x\" for option -F/--fillfactor\n"},
	{[]string{"-s", "0"}, optErr(func(o *setup.Options) { o.Scale = 0 }),
		"pgbench: error: -s/--scale must be in range 1..2147483647\n"},
	{[]string{"-s", ""}, parseErr("", "-s/--scale", 1, math.MaxInt32),
		"pgbench: error: -s/--scale must be in range 1..2147483647\n"},
	{[]string{"-s", "99999999999"}, parseErr("99999999999", "-s/--scale", 1, math.MaxInt32),
		"pgbench: error: -s/--scale must be in range 1..2147483647\n"},
	{[]string{"-s", "0x10"}, parseErr("0x10", "-s/--scale", 1, math.MaxInt32),
		"pgbench: error: invalid value \"0x10\" for option -s/--scale\n"},
}

func optErr(f func(o *setup.Options)) func() error {
	return func() error {
		o := setup.Defaults()
		f(&o)
		return o.Validate()
	}
}

func parseErr(arg, option string, min, max int) func() error {
	return func() error {
		_, err := setup.ParseInt(arg, option, min, max)
		return err
	}
}

func TestValidation(t *testing.T) {
	for _, tc := range validationCases {
		err := tc.err()
		if err == nil {
			t.Errorf("%q: no error, want %q", tc.args, tc.want)
			continue
		}
		if got := render(err); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
	if err := setup.Defaults().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}

// TestValidationDifferential checks the wanted messages are pgbench's own:
// pgbench validates before it connects, so no server is needed.
func TestValidationDifferential(t *testing.T) {
	bin := testutil.Pgbench(t)
	for _, tc := range validationCases {
		cmd := exec.Command(bin, append(append([]string{"-i"}, tc.args...), "-h", "/nonexistent", "nodb")...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err == nil {
			t.Errorf("%q: pgbench succeeded", tc.args)
		}
		if stderr.String() != tc.want {
			t.Errorf("%q: pgbench says %q, the test wants %q", tc.args, stderr.String(), tc.want)
		}
	}
}

func TestEffectiveSteps(t *testing.T) {
	for _, tc := range []struct {
		steps      string
		noVac, fks bool
		want       string
	}{
		{"dtgvp", false, false, "dtgvp"},
		{"dtgvp", true, false, "dtg p"},
		{"dtgvp", false, true, "dtgvpf"},
		{"dtfgv", true, true, "dtfg "},
	} {
		o := setup.Options{Steps: tc.steps, NoVacuum: tc.noVac, ForeignKeys: tc.fks}
		if got := o.EffectiveSteps(); got != tc.want {
			t.Errorf("%+v: %q, want %q", o, got, tc.want)
		}
	}
}

func TestParseInt(t *testing.T) {
	for _, tc := range []struct {
		arg  string
		want int
		ok   bool
	}{
		{"5", 5, true}, {" 5 ", 5, true}, {"+7", 7, true}, {"\t12\n", 12, true},
		{"-", 0, false}, {"1 2", 0, false}, {"1.5", 0, false}, {"", 0, false}, {"2147483648", 0, false},
	} {
		got, err := setup.ParseInt(tc.arg, "-x", 1, math.MaxInt32)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseInt(%q) = %d, %v", tc.arg, got, err)
		}
	}
}

func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"1", " 42 ", "-3", "+", "9999999999", "0x1", "", "7\t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, arg string) {
		v, err := setup.ParseInt(arg, "-x", -5, 1000)
		if err != nil {
			if !strings.Contains(err.Error(), "-x") {
				t.Fatalf("error without the option name: %v", err)
			}
			return
		}
		if v < -5 || v > 1000 {
			t.Fatalf("%q gave %d, out of range", arg, v)
		}
		if w, err := strconv.Atoi(strings.TrimSpace(arg)); err != nil && strings.TrimSpace(arg) != "" || err == nil && w != v {
			t.Fatalf("%q gave %d, strconv says %d, %v", arg, v, w, err)
		}
	})
}
