package job

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/testutil"
)

func TestParseCPUs(t *testing.T) {
	c, err := ParseCPUs("server=0,clients=0-1")
	if err != nil || len(c["server"]) != 1 || len(c["clients"]) != 2 {
		t.Fatalf("ParseCPUs = %v, %v", c, err)
	}
	for in, want := range map[string]string{
		"server":             "PART=CPUS",
		"disk=0":             "PART=CPUS",
		"server=0,server=1":  "twice",
		"server=1-0":         "range",
		"server=x":           "range",
		"server=-1":          "range",
		"server=1000":        "may use",
		"server=0,pooler=99": "may use",
	} {
		if _, err := ParseCPUs(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCPUs(%q) = %v, want an error saying %q", in, err, want)
		}
	}
	notes := strings.Join(CPUs{"server": {0}, "clients": {0, 1}}.Notes(true), "; ")
	if !strings.Contains(notes, "gave the pooler no CPUs") || !strings.Contains(notes, "the server and the clients share CPU 0") {
		t.Errorf("Notes = %q", notes)
	}
	if n := (CPUs{"server": {0}, "clients": {1}}).Notes(false); len(n) != 0 {
		t.Errorf("Notes without a pooler, parts apart = %q, want none", n)
	}
	if n := CPUs(nil).Notes(true); n != nil {
		t.Errorf("Notes without --cpus = %q", n)
	}
}

// TestPinServer: pinning the server sets the CPUs of the postmaster and
// of the processes it started, which a new backend inherits.
func TestPinServer(t *testing.T) {
	cl := testutil.Postgres(t)
	if err := (CPUs{"server": {0}}).pin("server", cl.PID()); err != nil {
		t.Fatal(err)
	}
	_, c, done := testutil.Conn(t, cl.URL()) // a backend forked after
	defer done()
	var backend int
	rows, err := c.Query(t.Context(), "SELECT pg_backend_pid()")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		rows.Scan(&backend)
	}
	rows.Close()
	pids := append([]int{cl.PID(), backend}, children(cl.PID())...)
	if len(pids) < 4 {
		t.Fatalf("postmaster %d has children %v, want its background processes", cl.PID(), children(cl.PID()))
	}
	for _, pid := range pids {
		if got := cpusAllowedList(t, pid); got != "0" {
			t.Errorf("process %d (postmaster %d) may run on CPUs %q, want 0", pid, cl.PID(), got)
		}
	}
}

// cpusAllowedList is Cpus_allowed_list of process pid.
func cpusAllowedList(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatalf("no Cpus_allowed_list for %d", pid)
	return ""
}
