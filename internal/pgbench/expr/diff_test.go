package expr_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	"github.com/txnbench/txnbench/internal/testutil"
)

// diffExprs are \set expressions evaluated in order by every client in
// every transaction, by pgbench and by us. Later ones may read earlier
// ones as :vN (1-based).
var diffExprs = []string{
	/* 1 */ "random(1, 10)",
	"random(-5, 5)",
	"random(1, 1000000000000)",
	"random(0, 9223372036854775806)",
	"random(-9223372036854775806, 0)",
	"random(7, 7)",
	"random_exponential(1, 100, 0.5)",
	"random_exponential(1, 1000, 5)",
	"random_exponential(-10, 10, 20.0)",
	/* 10 */ "random_gaussian(1, 100, 2.0)",
	"random_gaussian(1, 1000, 5.5)",
	"random_gaussian(-100, 100, 10)",
	"random_zipfian(1, 100, 1.5)",
	"random_zipfian(1, 1000000, 1.001)",
	"random_zipfian(1, 10, 10)",
	"random_zipfian(5, 1005, 2.5)",
	"random_zipfian(1, 1, 3)",
	"permute(:v1, 10)",
	"permute(random(0, 99), 100, 12345)",
	/* 20 */ "permute(5, 1)",
	"permute(-7, 10, 3)",
	"permute(123456789, 1000000007, -1)",
	"permute(:v3, 1000000000000, :v2)",
	"hash(:v1)",
	"hash(12345, 67)",
	"hash_fnv1a(:v3)",
	"hash_fnv1a(1, 2)",
	"hash_murmur2(-1)",
	"hash(:v4, :default_seed) = hash(:v4)",
	/* 30 */ "random(1, 100) / 7.0",
	"ln(random(1, 1000000))",
	"exp(random(1, 100) * 0.37)",
	"sqrt(random(1, 1000))",
	"pow(random(1, 10), 0.37)",
	"power(2, 0.5) * pi()",
	"1e300 * 1e300",
	"-1e300 * 1e300",
	"sqrt(-1.0)",
	"0.0 / 0.0",
	/* 40 */ "ln(0.0)",
	"ln(-1)",
	"pow(-8, 1.0/3)",
	"random(1, 1000000) / 3.0",
	":v43 - int(:v43 * 1000) / 1000.0",
	"ln(:v43)",
	":v45 - int(:v45 * 1000000) / 1000000.0",
	"exp(:v45)",
	":v47 - int(:v47) + 0.0",
	"pow(:v43, 1.0/3)",
	/* 50 */ ":v49 - int(:v49 * 1000000) / 1000000.0",
	"pow(1.0001, random(1, 100000))",
	":v51 - int(:v51 * 1000000) / 1000000.0",
	"int(5.5) + int(4.5) * 10 + int(-2.5) * 100",
	"double(3) / 2",
	"5 % 3 + (-5 % 3) * 10 + mod(-7, 2) * 100",
	"5.7 % 2",
	"7 / -2 + (-7 / 2) * 10",
	"(5 & 3) + (5 | 3) * 10 + (5 # 3) * 100",
	"~5",
	/* 60 */ "1 << 3",
	"1 << 65",
	"-16 >> 2",
	"1 >> 64",
	"1 << -1",
	"1 < 2",
	"2.5 >= 2",
	"1 = 1.0",
	"1 <> 2",
	"1 != 1",
	/* 70 */ "true AND false",
	"true OR null",
	"null OR true",
	"NOT true",
	"1 IS NULL",
	"null IS NULL",
	"true IS TRUE",
	"false IS NOT TRUE",
	"1 ISNULL",
	"1 NOTNULL",
	/* 80 */ "(random(0, 1) = 1) AND (random(0, 1) = 1)",
	"(random(0, 1) = 1) OR (random(0, 1) = 1)",
	"case when random(0, 1) = 1 then random(1, 10) else -random(1, 10) end",
	"case when 0 then 1 end",
	"case when 2.5 then 1 when true then 2 else 3 end",
	"least(1, 2.5, -3)",
	"greatest(1, 2, 3)",
	"least(random(1, 10), random(1, 10), random(1, 10))",
	"greatest(1.5, null)",
	"abs(-5) + abs(3)",
	/* 90 */ "abs(-2.5)",
	"abs(0.0 * -1)",
	"-9223372036854775808",
	"9223372036854775807 + 0",
	"1.5e3 + .5 + 5.",
	"1e-5",
	"123456789012345678.0",
	"0.1 + 0.2",
	"random(1, 10) > random(1, 10)",
	"random(1, 10) - random(1, 10)",
	/* 100 */ "random(1, 10) >= random(1, 10)",
	":client_id * 1000 + :scale",
	":random_seed",
	":default_seed",
	"debug(random(1, 100))",
	"debug(1.5)",
	"debug(null)",
	"debug(true)",
	"null",
	"1 + 2 * 3 - 4 / 2 % 3",
	/* 110 */ "- 2 * 3 + ~ 1 | 2",
	"NOT 1 = 2 AND true",
	"1 < 2 IS TRUE",
	"2 + 3 ISNULL",
	"NOT 2 = 3 IS NULL",
	"abs(, -3)",
	"CASE WHEN :v1 > 5 THEN 'big' END IS NULL" + "", // placeholder replaced below
	"int(random(1, 100) * 1.5)",
	"random_gaussian(1, 10, 2) + random_exponential(1, 10, 1) + random_zipfian(1, 10, 1.1)",
	"pi()",
	/* 120 */ "exp(710)",
	"exp(-750)",
	"sqrt(2) * sqrt(2) = 2",
	"greatest(0.0 / 0.0, 1.0)",
	"least(1.0, 0.0 / 0.0)",
	"2.0 ^ 3",
	"abs(true)",
	"abs(false)",
	"1 IS TRUE",
	"2.5 IS NOT NULL",
	"ln(:v43) * 0 + exp(:v46 - :v46) + pow(:v49, 0)",
}

func init() {
	// 116: no string literals in pgbench expressions; use a CASE on a var.
	diffExprs[115] = "CASE WHEN :v1 > 5 THEN :v1 END IS NULL"
	// 125: '^' is not an operator; keep the slot with something valid.
	diffExprs[124] = "pow(2.0, 3)"
}

const perShell = 6

// ulpProbes are the expressions that expose the last bits of ln, exp and
// pow results. Our Exp/Log/Pow are correctly rounded; glibc's misround
// about 1 in 2000 results, so these may differ in rare cases: tolerated
// (and logged) when few.
var ulpProbes = map[int]bool{44: true, 46: true, 48: true, 50: true, 52: true}

// pgbenchScript writes the \set lines and \shell echo lines.
func pgbenchScript(exprs []string) string {
	var b strings.Builder
	for i, e := range exprs {
		fmt.Fprintf(&b, "\\set v%d %s\n", i+1, e)
	}
	for i := 0; i < len(exprs); i += perShell {
		fmt.Fprintf(&b, "\\shell echo C :client_id L%d", i/perShell)
		for j := i; j < len(exprs) && j < i+perShell; j++ {
			fmt.Fprintf(&b, " :v%d", j+1)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// runPgbench runs pgbench and returns stdout and stderr.
func runPgbench(t *testing.T, pgbench, url string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(pgbench, append(args, testutil.LibpqURL(url))...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PGBENCH_RANDOM_SEED=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	err := cmd.Run()
	return out.String(), errb.String(), err
}

// clientLines groups pgbench's "C <client> ..." lines by client.
func clientLines(out string) map[string][]string {
	m := map[string][]string{}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && f[0] == "C" {
			m[f[1]] = append(m[f[1]], strings.Join(f[2:], " "))
		}
	}
	return m
}

// simulate runs the script for one client, as pgbench would.
func simulate(t *testing.T, exprs []*expr.Expr, seeds prng.Seeds, client, txns int) ([]string, []expr.Value) {
	t.Helper()
	env := newEnv(seeds.Client[client])
	env.vals["client_id"] = expr.IntValue(int64(client))
	env.vals["scale"] = expr.IntValue(1)
	env.vals["default_seed"] = expr.IntValue(seeds.DefaultSeed)
	env.vals["random_seed"] = expr.IntValue(seeds.RandomSeed)
	var lines []string
	for tx := 0; tx < txns; tx++ {
		for i, e := range exprs {
			v, err := e.Eval(env)
			if err != nil {
				t.Fatalf("client %d: \\set v%d %s: %v", client, i+1, e, err)
			}
			env.vals[fmt.Sprintf("v%d", i+1)] = v
		}
		for i := 0; i < len(exprs); i += perShell {
			parts := []string{fmt.Sprintf("L%d", i/perShell)}
			for j := i; j < len(exprs) && j < i+perShell; j++ {
				parts = append(parts, env.str(fmt.Sprintf("v%d", j+1)))
			}
			lines = append(lines, strings.Join(parts, " "))
		}
	}
	return lines, env.debug
}

// TestDifferential compares every \set value with the real pgbench for
// several seeds, clients and transactions.
func TestDifferential(t *testing.T) {
	pgbench, u, dir := pgbenchAndServer(t)
	script := filepath.Join(dir, "exprs.sql")
	if err := os.WriteFile(script, []byte(pgbenchScript(diffExprs)), 0o644); err != nil {
		t.Fatal(err)
	}
	compiled := make([]*expr.Expr, len(diffExprs))
	for i, s := range diffExprs {
		e, err := expr.Parse(s)
		if err != nil {
			t.Fatalf("parse %q: %v", s, err)
		}
		compiled[i] = e
	}
	const clients, txns = 3, 20
	for _, seed := range []string{"1", "42", "18446744073709551615", "987654321"} {
		t.Run("seed="+seed, func(t *testing.T) {
			out, stderr, err := runPgbench(t, pgbench, u, "-n", "-c", fmt.Sprint(clients), "-j", "1",
				"-t", fmt.Sprint(txns), "--random-seed="+seed, "-f", script)
			if err != nil {
				t.Fatalf("pgbench: %v\n%s", err, stderr)
			}
			s, err := prng.ParseSeed(seed)
			if err != nil {
				t.Fatal(err)
			}
			seeds := prng.Derive(s, clients, 1)
			got := clientLines(out)
			var debugWant []string
			probeDiffs := 0
			for k := 0; k < clients; k++ {
				want, dbg := simulate(t, compiled, seeds, k, txns)
				for _, v := range dbg {
					debugWant = append(debugWant, v.DebugString())
				}
				g := got[fmt.Sprint(k)]
				if len(g) != len(want) {
					t.Fatalf("client %d: pgbench printed %d lines, we %d\n%s", k, len(g), len(want), stderr)
				}
				bad := 0
				for i := range want {
					if g[i] == want[i] {
						continue
					}
					gf, wf := strings.Fields(g[i]), strings.Fields(want[i])
					line := 0
					fmt.Sscanf(wf[0], "L%d", &line)
					for j := 1; j < len(wf) && j < len(gf); j++ {
						if gf[j] != wf[j] {
							n := line*perShell + j
							if ulpProbes[n] {
								t.Logf("ulp probe v%d = %s: pgbench %q, we %q", n, diffExprs[n-1], gf[j], wf[j])
								probeDiffs++
								continue
							}
							t.Errorf("client %d txn %d: v%d = %s: pgbench %q, we %q", k, i/((len(diffExprs)+perShell-1)/perShell), n, diffExprs[n-1], gf[j], wf[j])
							bad++
						}
					}
					if bad > 20 {
						t.Fatal("too many differences")
					}
				}
			}
			if probeDiffs > 3 {
				t.Errorf("%d last-ulp differences in ln/exp/pow probes, more than glibc's rare misrounding explains", probeDiffs)
			}
			var debugGot []string
			for _, l := range strings.Split(stderr, "\n") {
				if strings.HasPrefix(l, "debug(script=0,command=") {
					debugGot = append(debugGot, l[strings.Index(l, ": ")+2:])
				}
			}
			sort.Strings(debugGot)
			sort.Strings(debugWant)
			if strings.Join(debugGot, "\n") != strings.Join(debugWant, "\n") {
				t.Errorf("debug() output differs:\npgbench %q\nwe      %q", debugGot, debugWant)
			}
		})
	}
}

// pgbenchAndServer returns pgbench's path, the URL of a database of the
// test's own on the package's shared cluster (testutil.SharedPostgres) and
// a directory for scripts, for the differential tests; they are skipped
// with -short.
func pgbenchAndServer(t *testing.T) (pgbench, url, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL and runs pgbench")
	}
	return testutil.Pgbench(t), testutil.SharedPostgres(t), t.TempDir()
}
