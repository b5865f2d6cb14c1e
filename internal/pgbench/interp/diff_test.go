package interp_test

import (
	"context"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/pgbench/interp"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	"github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/testutil"
)

// diffScript computes values with the random functions, \gset, \if and
// \setshell, and inserts them with the client's id and its own counter.
const diffScript = `\set seq :seq + 1
\set a random(1, 1000)
\set g random_gaussian(1, 100, 2.5)
\set e random_exponential(1, 1000, 3.0)
\set z random_zipfian(1, 500, 1.2)
\set p permute(:a, 1000)
\set h hash(:a)
\set d :a / 7.0
SELECT :a * 2 AS twice, length(md5(:a::text)) * 1000 + ascii(md5(:a::text)) AS m \gset q_
\if :q_twice > 1000
\set big 1
\elif :q_twice > 500
\set big 2
\else
\set big 3
\endif
\setshell sh echo :g
INSERT INTO diff (who, client_id, seq, a, g, e, z, p, h, d, twice, m, big, sh, scale, rseed)
  VALUES (:who, :client_id, :seq, :a, :g, :e, :z, :p, :h, :d, :q_twice, :q_m, :big, :sh, :scale, :random_seed);
`

// TestDifferentialAgainstPgbench runs the same script with the same
// --random-seed by the real pgbench and by the interpreter, on the same
// server, each inserting what it computed; the two sets of rows must be
// equal in every query mode.
func TestDifferentialAgainstPgbench(t *testing.T) {
	pgbench := testutil.NeedPgbench(t)
	tg := database(t)
	c := connect(t, tg)
	exec(t, c, `CREATE TABLE diff (who int, client_id int, seq int, a bigint, g bigint, e bigint, z bigint, p bigint,
		h bigint, d text, twice int, m int, big int, sh int, scale int, rseed bigint)`)
	dir := t.TempDir()
	file := filepath.Join(dir, "diff.sql")
	if err := os.WriteFile(file, []byte(diffScript), 0o644); err != nil {
		t.Fatal(err)
	}
	db := rowsOf(t, c, "SELECT current_database()")[0]
	url := strings.Replace(pgURL(t), "/postgres?", "/"+db+"?", 1)
	const clients, txns, seed = 3, 15, 20260101
	s := parse(t, diffScript)
	for _, mode := range modes {
		exec(t, c, "TRUNCATE diff")
		cmd := osexec.Command(pgbench, "-n", "-c", fmt.Sprint(clients), "-j", "1", "-t", fmt.Sprint(txns),
			"--random-seed", fmt.Sprint(seed), "-M", mode.String(), "-D", "seq=0", "-D", "who=1", "-f", file, url)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("pgbench -M %s: %v\n%s", mode, err, out)
		}
		cfg := &interp.Config{Scripts: []*script.Script{s}, Mode: mode, Scale: 1,
			Seeds: prng.Derive(seed, clients, 1), Defines: map[string]string{"seq": "0", "who": "2"}}
		for id := 0; id < clients; id++ {
			cl := interp.NewClient(cfg, id)
			for i := 0; i < txns; i++ {
				cl.Begin()
				if err := cl.Run(context.Background(), c, 0); err != nil {
					t.Fatalf("-M %s client %d: %v", mode, id, err)
				}
			}
		}
		cols := "client_id, seq, a, g, e, z, p, h, d, twice, m, big, sh, scale, rseed"
		q := func(who string) []string {
			return rowsOf(t, c, fmt.Sprintf("SELECT %s FROM diff WHERE who = %s ORDER BY client_id, seq", cols, who))
		}
		theirs, ours := q("1"), q("2")
		if len(theirs) != clients*txns {
			t.Fatalf("-M %s: pgbench inserted %d rows, want %d", mode, len(theirs), clients*txns)
		}
		if !reflect.DeepEqual(ours, theirs) {
			for i := range theirs {
				if i >= len(ours) || ours[i] != theirs[i] {
					o := "<missing>"
					if i < len(ours) {
						o = ours[i]
					}
					t.Errorf("-M %s row %d:\npgbench  %s\ntxnbench %s", mode, i, theirs[i], o)
					break
				}
			}
			t.Errorf("-M %s: %d rows from pgbench, %d from txnbench, differing", mode, len(theirs), len(ours))
		}
	}
}
