package outputs

import (
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli"
	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/live/promtext"
)

var metricsURL = regexp.MustCompile(`metrics on (http://\S+/metrics)`)

// startMain runs Main in the background and waits for its metrics URL.
func startMain(t *testing.T, args ...string) (url string, stderr *clitest.Buffer, code <-chan int) {
	t.Helper()
	stderr = &clitest.Buffer{}
	done := make(chan int, 1)
	go func() { done <- cli.Main(args, io.Discard, stderr) }()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := metricsURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stderr, done
		}
		select {
		case c := <-done:
			t.Fatalf("exit %d before the metrics URL was printed:\n%s", c, stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("no metrics URL in:\n%s", stderr)
	return "", nil, nil
}

// scrapeURL gets and strictly parses the exposition.
func scrapeURL(t *testing.T, url string) []promtext.Family {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("GET %s: %s, Content-Type %q", url, resp.Status, resp.Header.Get("Content-Type"))
	}
	fams, err := promtext.Parse(string(body))
	if err != nil {
		t.Fatalf("invalid exposition: %v\n%s", err, body)
	}
	return fams
}

// series maps "op/kind" (and the cell, if any) to a family's values.
func series(fams []promtext.Family, name string) map[string]float64 {
	out := map[string]float64{}
	f := promtext.Find(fams, strings.TrimSuffix(strings.TrimSuffix(name, "_count"), "_sum"))
	if f == nil {
		return out
	}
	for _, s := range f.Samples {
		if s.Name == name {
			out[s.Label("cell")+"|"+s.Label("op")] = s.Value
		}
	}
	return out
}

// TestMetricsDuringRun runs txnbench with --metrics-addr, scrapes twice
// while it runs, and checks that the counters grow, that every scrape is a
// valid exposition with consistent histograms, and that the endpoint is
// gone when the run is over.
func TestMetricsDuringRun(t *testing.T) {
	args := append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "m.db"),
		"--duration", "3s", "--warmup", "700ms", "--progress", "200ms", "--clients", "2", "--metrics-addr", "127.0.0.1:0"}, clitest.Quick...)
	url, stderr, code := startMain(t, args...)
	if strings.HasSuffix(url, ":0/metrics") {
		t.Errorf("the URL %s does not show the real port", url)
	}

	var first []promtext.Family
	sawWarmup := false
	deadline := time.Now().Add(20 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		first = scrapeURL(t, url)
		if promtext.Find(first, "txnbench_run_info").Samples != nil && series(first, "txnbench_measuring")["|"] == 0 {
			sawWarmup = true
			if n := series(first, "txnbench_ops_total")["|cycle"]; n != 0 {
				t.Errorf("%g cycles counted during the warm-up", n)
			}
		}
		if series(first, "txnbench_ops_total")["|cycle"] > 0 {
			break
		}
	}
	if !sawWarmup {
		t.Error("never saw txnbench_measuring 0 before measuring (loading, warm-up)")
	}
	if series(first, "txnbench_ops_total")["|cycle"] == 0 {
		t.Fatalf("no cycle counted while running:\n%s", stderr)
	}
	// Scrape again until every op has grown (a later progress interval).
	grown := []string{"|add", "|process", "|archive", "|cycle"}
	ops1 := series(first, "txnbench_ops_total")
	var second []promtext.Family
	var ops2 map[string]float64
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		second = scrapeURL(t, url)
		ops2 = series(second, "txnbench_ops_total")
		if !slices.ContainsFunc(grown, func(op string) bool { return ops2[op] <= ops1[op] }) || time.Now().After(deadline) {
			break
		}
	}
	for _, op := range grown {
		if ops2[op] <= ops1[op] {
			t.Errorf("ops_total{op=%q} did not grow: %g then %g", op, ops1[op], ops2[op])
		}
	}
	if _, ok := ops2["|connect"]; !ok {
		t.Errorf("no connection-wait op among %v", ops2)
	}
	for _, fams := range [][]promtext.Family{first, second} {
		if v := series(fams, "txnbench_measuring")["|"]; v != 1 {
			t.Errorf("measuring = %g during the run", v)
		}
		if v := series(fams, "txnbench_clients")["|"]; v != 2 {
			t.Errorf("clients = %g", v)
		}
		// the histogram counts what ops_total counts
		counts, ops := series(fams, "txnbench_op_latency_seconds_count"), series(fams, "txnbench_ops_total")
		for op, n := range ops {
			if counts[op] != n {
				t.Errorf("op %s: latency count %g, ops_total %g", op, counts[op], n)
			}
		}
		info := promtext.Find(fams, "txnbench_run_info")
		if info == nil || len(info.Samples) != 1 || info.Samples[0].Label("workload") != "train-events" || !strings.HasPrefix(info.Samples[0].Label("server_version"), "SQLite") {
			t.Errorf("run_info: %+v", info)
		}
	}

	select {
	case c := <-code:
		if c != exitcode.OK {
			t.Fatalf("exit %d:\n%s", c, stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the run did not end")
	}
	host := strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/metrics")
	if c, err := net.DialTimeout("tcp", host, time.Second); err == nil {
		c.Close()
		t.Errorf("%s still listens after the run", host)
	}
}

// TestMetricsDuringStudy: one endpoint for the whole study, each cell's
// series labelled with the cell.
func TestMetricsDuringStudy(t *testing.T) {
	args := append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(t.TempDir(), "s.db"),
		"--vary", "clients=1,2", "--duration", "1500ms", "--progress", "200ms", "--settle", "0s",
		"--out", filepath.Join(t.TempDir(), "st"), "--metrics-addr", "127.0.0.1:0"}, clitest.Quick...)
	url, stderr, code := startMain(t, args...)
	var last []promtext.Family
	deadline := time.Now().Add(30 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		last = scrapeURL(t, url)
		if series(last, "txnbench_ops_total")["clients=2|cycle"] > 0 {
			break
		}
	}
	ops := series(last, "txnbench_ops_total")
	if ops["clients=1|cycle"] == 0 || ops["clients=2|cycle"] == 0 {
		t.Errorf("both cells should have counted cycles: %v\n%s", ops, stderr)
	}
	if m := series(last, "txnbench_measuring"); m["clients=1|"] != 0 || m["clients=2|"] != 1 {
		t.Errorf("measuring %v: want only the running cell", m)
	}
	if c := <-code; c != exitcode.OK {
		t.Fatalf("exit %d:\n%s", c, stderr)
	}
	if n := strings.Count(stderr.String(), "metrics on http://"); n != 1 {
		t.Errorf("%d metrics endpoints for one study", n)
	}
}

// TestMetricsAddrBusy: a busy port fails the command at once, before a
// server is started (temp-postgres would take seconds), naming the fix.
func TestMetricsAddrBusy(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	addr := ln.Addr().String()
	for _, cmd := range [][]string{
		{"run", "train-events", "--db", "temp-postgres", "--metrics-addr", addr},
		{"study", "train-events", "--db", "temp-postgres", "--vary", "clients=1,2", "--out", filepath.Join(t.TempDir(), "st"), "--metrics-addr", addr},
	} {
		start := time.Now()
		code, _, stderr := clitest.Run(cmd...)
		if code != exitcode.Failure || !strings.Contains(stderr, "--metrics-addr: "+addr+" is already in use") || !strings.Contains(stderr, "port 0") {
			t.Errorf("%s: exit %d, stderr:\n%s", cmd[0], code, stderr)
		}
		if strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: more than one line:\n%s", cmd[0], stderr)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s took %s to fail: something started before the port was checked", cmd[0], d)
		}
	}
}

func TestMetricsAddrUsage(t *testing.T) {
	for _, addr := range []string{"9464", "localhost", "127.0.0.1:http", "127.0.0.1:70000", "http://localhost:9464"} {
		for _, cmd := range []string{"run", "study"} {
			args := []string{cmd, "train-events", "--metrics-addr", addr}
			if cmd == "study" {
				args = append(args, "--vary", "clients=1,2")
			}
			code, _, stderr := clitest.Run(args...)
			if code != exitcode.Usage || !strings.Contains(stderr, "--metrics-addr") || !strings.Contains(stderr, "127.0.0.1:9464") {
				t.Errorf("%s --metrics-addr %s: exit %d, stderr:\n%s", cmd, addr, code, stderr)
			}
		}
	}
}
