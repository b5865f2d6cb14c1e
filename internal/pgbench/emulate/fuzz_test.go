package emulate

import (
	"os"
	"strings"
	"testing"
)

// FuzzPgbenchOptions parses pgbench command lines and, for those accepted
// for a run, draws scripts as the clients would: no combination of
// options may panic, and every draw must name one of the scripts.
func FuzzPgbenchOptions(f *testing.F) {
	for _, seed := range []string{
		"-n -b se@0 -b si@0 -b tpcb@0 -T 2",
		"-b se@0",
		"-b se@0 -S",
		"-b se@2147483647 -b si@2147483647 -b tpcb@1",
		"-S -N -b tpcb@3 -c 4 -j 2 --random-seed 7",
		"-b se@-1", "-b se@", "-b @1", "-b list", "--show-script=se",
		"-i -S", "-S -F 90", "-I dtg", "--log-prefix=x", "-l -T 1 --aggregate-interval=3",
		"-c 3 -j 9 -t 1", "--max-tries 0 -L 5", "-R 0.5 -L 1", "-D x=1 -D y=",
		"-M prepared -b se", "--sampling-rate 0.5 -l", "-P 1 --progress-timestamp",
		"--r=1", "-c=1", "--=1", "-nc", "--cli 2 --tr=1", "-- -c 0", "--show-script=se -c 0", "--sh=",
	} {
		f.Add(seed)
	}
	// "-f -" reads the script from stdin: give it nothing.
	null, err := os.Open(os.DevNull)
	if err != nil {
		f.Fatal(err)
	}
	defer null.Close()
	stdin := os.Stdin
	os.Stdin = null
	defer func() { os.Stdin = stdin }()
	f.Fuzz(func(t *testing.T, line string) {
		o := newPgbenchOpts(pgbench17)
		if o.parse(strings.Fields(line)) != nil || o.init || o.help || o.version || o.listOnly || o.shown != "" {
			return
		}
		scripts := len(o.w.Scripts())
		if scripts == 0 {
			t.Fatalf("%q: accepted without a script", line)
		}
		for thread := range 2 {
			next := o.w.Chooser(*o.w.RandomSeed + uint64(thread))
			for range 50 {
				if i := next(); i < 0 || i >= scripts {
					t.Fatalf("%q: script %d of %d", line, i, scripts)
				}
			}
		}
	})
}
