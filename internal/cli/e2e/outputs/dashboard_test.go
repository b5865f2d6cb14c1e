package outputs

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/testutil"
)

var dashboardURL = regexp.MustCompile(`dashboard on (http://\S+/)`)

// startDashboard runs the real command with args in a child process and
// waits for the dashboard's URL on its stderr.
func startDashboard(t *testing.T, args ...string) (url string, cmd *exec.Cmd, stderr *clitest.Buffer) {
	t.Helper()
	cmd, _, stderr = clitest.Start(t, args...)
	clitest.WaitFor(t, stderr, 0, `dashboard on http://\S+/`)
	return dashboardURL.FindStringSubmatch(stderr.String())[1], cmd, stderr
}

// recorder is an HTTP proxy that Chromium sends every request through
// (loopback's too): it records each one the page made and forwards only
// those to the dashboard's origin, so a page that reached anywhere else is
// seen.
type recorder struct {
	origin string // host:port of the dashboard
	addr   string // the proxy's
	mu     sync.Mutex
	seen   []string
}

// record starts a recorder for the dashboard at url, stopped with the
// test.
func record(t *testing.T, url string) *recorder {
	rec := &recorder{origin: strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rec.addr = ln.Addr().String()
	srv := &http.Server{Handler: rec}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rec
}

// updates is how many updates the page asked for.
func (p *recorder) updates() int {
	n := 0
	for _, r := range p.requests() {
		if strings.HasPrefix(r, "GET http://"+p.origin+"/content?") {
			n++
		}
	}
	return n
}

func (p *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The page's own requests name it as their referrer (the browser's
	// default policy sends at least its origin, cross-origin too); the
	// browser's background requests (its updates, its accounts) name none.
	if strings.HasPrefix(r.Referer(), "http://"+p.origin+"/") {
		p.mu.Lock()
		p.seen = append(p.seen, r.Method+" "+r.URL.String())
		p.mu.Unlock()
	}
	if r.Method == http.MethodConnect || r.URL.Host != p.origin {
		http.Error(w, "outside the dashboard's origin", http.StatusForbidden)
		return
	}
	out, err := http.NewRequestWithContext(r.Context(), r.Method, r.URL.String(), nil)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = r.Header.Clone()
	resp, err := http.DefaultTransport.RoundTrip(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(resp.StatusCode)
	io.Copy(w, resp.Body)
}

func (p *recorder) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.seen...)
}

// watch opens the dashboard at url in headless Chromium, through a
// recorder, until the page has stopped asking for updates (it has the
// final figures, or txnbench is gone) and its time budget is spent; it
// returns the page's DOM then and every request the browser made, and
// keeps a screenshot at png. The budget is virtual time, which stands
// still while a request is pending: a page waiting for its next update
// does not spend it.
func watch(t *testing.T, chromium, url, png string, rec *recorder) (dom string, requests []string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := headless(ctx, t, chromium, "--no-first-run", "--disable-background-networking", "--disable-component-update",
		"--proxy-server=http://"+rec.addr, "--proxy-bypass-list=<-loopback>",
		"--virtual-time-budget=30000", "--dump-dom", "--hide-scrollbars", "--window-size=1280,4000", "--screenshot="+png, url)
	if err != nil {
		t.Errorf("chromium %s: %v", url, err)
		return "", nil
	}
	return string(out), rec.requests()
}

// exited waits for the command started and returns its exit status.
func exited(cmd *exec.Cmd) int {
	cmd.Wait()
	return cmd.ProcessState.ExitCode()
}

// htmlAttrs are the attributes of the DOM's <html> tag.
func htmlAttrs(dom string) map[string]string {
	tag := regexp.MustCompile(`<html[^>]*>`).FindString(dom)
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`([a-z-]+)="([^"]*)"`).FindAllStringSubmatch(tag, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}

// checkDrawn checks that the page took the final figures after at least
// two updates, drew want charts, none blank or failed, and asked for
// nothing outside the dashboard's origin.
func checkDrawn(t *testing.T, dom string, requests []string, url string, want int) {
	t.Helper()
	a := htmlAttrs(dom)
	if a["data-live-final"] != "true" {
		t.Errorf("the page does not hold the final figures: data-live-final=%q, error %q", a["data-live-final"], a["data-live-error"])
	}
	if n, _ := strconv.Atoi(a["data-live-updates"]); n < 2 {
		t.Errorf("the page took %q updates, want at least 2", a["data-live-updates"])
	}
	if a["data-charts-drawn"] != strconv.Itoa(want) {
		t.Errorf("%s charts drawn, want %d (the final report's)", a["data-charts-drawn"], want)
	}
	for _, k := range []string{"data-charts-blank", "data-charts-failed", "data-charts-empty"} {
		if a[k] != "" {
			t.Errorf("%s=%q", k, a[k])
		}
	}
	contents := 0
	for _, r := range requests {
		if !strings.HasPrefix(r, "GET "+url) {
			t.Errorf("the page made a request outside its origin %s: %s", url, r)
		}
		if strings.HasPrefix(r, "GET "+url+"content?") {
			contents++
		}
	}
	if contents < 2 {
		t.Errorf("%d requests for an update, want at least 2: %q", contents, requests)
	}
}

// tableRows are the rows (cells as text) of the table titled title in
// the DOM.
func tableRows(t *testing.T, dom, title string) [][]string {
	t.Helper()
	i := strings.Index(dom, "<h2>"+title+"</h2>")
	if i < 0 {
		t.Fatalf("no table %q on the page", title)
	}
	body := dom[i:]
	body = body[:strings.Index(body, "</table>")]
	var rows [][]string
	for _, tr := range regexp.MustCompile(`(?s)<tr>(.*?)</tr>`).FindAllStringSubmatch(body, -1) {
		var row []string
		for _, td := range regexp.MustCompile(`(?s)<td[^>]*>(.*?)</td>`).FindAllStringSubmatch(tr[1], -1) {
			row = append(row, html.UnescapeString(td[1]))
		}
		if row != nil {
			rows = append(rows, row)
		}
	}
	return rows
}

// count reads a count as the tables write it (1,234).
func count(s string) int64 {
	n, _ := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	return n
}

// partial waits for the dashboard's figures to hold at least two
// intervals and returns them, as /result.json serves them.
func partial(t *testing.T, url string) *result.Result {
	t.Helper()
	path := filepath.Join(t.TempDir(), "partial.json")
	var r *result.Result
	testutil.Poll(2*time.Minute, 50*time.Millisecond, func() bool {
		resp, err := http.Get(url + "result.json")
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if bytes.HasPrefix(b, []byte("null")) {
			return false
		}
		os.WriteFile(path, b, 0o644)
		if r, err = result.Load(path); err != nil {
			t.Fatalf("the dashboard's result.json does not load as a result: %v", err)
		}
		return len(r.Intervals) >= 2 && r.Invariants == nil
	})
	if r == nil || len(r.Intervals) < 2 {
		t.Fatalf("the dashboard never served two intervals")
	}
	return r
}

// TestDashboardInChromium runs train-events on SQLite with --dashboard
// and a short --progress, and a study with it, and watches each in
// headless Chromium: the page updates without reloading (two updates at
// least, then the run is interrupted: its length is the page's, not the
// machine's), takes the final figures, draws every chart of the final
// report, shows the per-op counts (a study: each cell's throughput) of
// the saved JSON, and asks for nothing outside its own origin. While the
// run goes, the figures so far add up: the ops' totals are their
// intervals'. The study's page shows the cells done beside the running
// one.
func TestDashboardInChromium(t *testing.T) {
	t.Parallel()
	chromium := testutil.NeedChromium(t)
	artifacts := testutil.Artifacts(t)
	dir := t.TempDir()
	type watched struct {
		dom      string
		requests []string
	}
	// open watches url in Chromium until the page has taken two updates,
	// then interrupts cmd; the page is read once Chromium is done.
	open := func(url string, cmd *exec.Cmd, stderr *clitest.Buffer, png string, meanwhile func()) (watched, int) {
		rec := record(t, url)
		page := make(chan watched, 1)
		go func() {
			dom, reqs := watch(t, chromium, url, png, rec)
			page <- watched{dom, reqs}
		}()
		meanwhile()
		// the third request for an update: the page took two
		if !testutil.Poll(2*time.Minute, 20*time.Millisecond, func() bool { return rec.updates() >= 3 }) {
			t.Errorf("the page asked for %d updates: %q", rec.updates(), rec.requests())
		}
		cmd.Process.Signal(os.Interrupt)
		code := exited(cmd)
		w := <-page
		if w.dom == "" {
			t.Fatalf("no page from Chromium; txnbench said:\n%s", stderr)
		}
		checkPNG(t, png)
		t.Logf("screenshot of the dashboard: %s", png)
		return w, code
	}

	runJSON, saved := filepath.Join(dir, "run.json"), filepath.Join(dir, "saved.html")
	url, cmd, stderr := startDashboard(t, append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(dir, "r.db"),
		"--clients", "2", "--duration", "10m", "--progress", "300ms", "--seed", "5", "--json", runJSON,
		"--dashboard", "--dashboard-save", saved}, clitest.Quick...)...)
	if !strings.HasPrefix(url, "http://127.0.0.1:") || strings.HasSuffix(url, ":0/") {
		t.Errorf("the dashboard's URL %s is not on loopback with its real port", url)
	}
	w, code := open(url, cmd, stderr, filepath.Join(artifacts, "dashboard-run.png"), func() {
		so := partial(t, url)
		for _, o := range so.Ops {
			if sum := intervalsCount(so, o.Name); o.Kind != result.KindStatement && sum != o.Count {
				t.Errorf("the run so far: op %s counts %d, its intervals %d", o.Name, o.Count, sum)
			}
		}
	})
	if code != exitcode.Interrupted {
		t.Fatalf("run --dashboard, interrupted: exit %d\n%s", code, stderr)
	}
	r := clitest.LoadResult(t, runJSON)
	checkDrawn(t, w.dom, w.requests, url, report.ChartCount(r))
	rows := tableRows(t, w.dom, "per op")
	if len(rows) != len(r.Ops) {
		t.Errorf("the page lists %d ops, the JSON %d", len(rows), len(r.Ops))
	}
	for _, row := range rows {
		o := r.Op(row[0])
		if o == nil || count(row[3]) != o.Count || count(row[len(row)-1]) != o.ErrorCount() || count(row[len(row)-2]) != o.Retries {
			t.Errorf("the page's op %q: ops %s, retries %s, errors %s; the JSON has %+v", row[0], row[3], row[len(row)-2], row[len(row)-1], o)
		}
	}
	// the CPU of each part, as the JSON has it
	parts := tableRows(t, w.dom, "CPU of each part")
	if r.CPU == nil || len(parts) != len(r.CPU.Parts) {
		t.Errorf("the page lists the CPU of %d parts, the JSON %+v", len(parts), r.CPU)
	} else {
		for i, p := range r.CPU.Parts {
			if parts[i][0] != p.Name || parts[i][2] != strconv.FormatFloat(p.CPUS, 'f', 2, 64) {
				t.Errorf("the page's part %q: %s s of CPU; the JSON's %s: %.2f s", parts[i][0], parts[i][2], p.Name, p.CPUS)
			}
		}
	}
	// the saved page is the final report, as --html writes it
	var want bytes.Buffer
	report.HTML(&want, r)
	if got, err := os.ReadFile(saved); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Errorf("--dashboard-save %s (%v) is not the run's HTML report", saved, err)
	}

	// a study whose second cell runs until the page has seen it
	out := filepath.Join(dir, "study")
	url, cmd, stderr = startDashboard(t, append([]string{"study", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"),
		"--progress", "250ms", "--settle", "0", "--seed", "5", "--vary", "duration=1s,10m", "--out", out, "--dashboard"}, clitest.Quick...)...)
	w, code = open(url, cmd, stderr, filepath.Join(artifacts, "dashboard-study.png"), func() {
		// the cells done beside the running one, as the page takes them
		beside := false
		for seq := 0; !beside; {
			resp, err := http.Get(fmt.Sprintf("%scontent?after=%d", url, seq))
			if err != nil {
				break
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			m := regexp.MustCompile(`data-seq="(\d+)" data-final="(\w+)"`).FindSubmatch(b)
			if m == nil {
				t.Fatalf("an update without its sequence number:\n%s", b)
			}
			seq, _ = strconv.Atoi(string(m[1]))
			beside = bytes.Contains(b, []byte("<h2>cells</h2>")) && bytes.Contains(b, []byte("<h1>running: cell duration=10m (the run so far)</h1>"))
			if string(m[2]) == "true" {
				break
			}
		}
		if !beside {
			t.Error("no update showed the cells done beside the running cell")
		}
	})
	if code != exitcode.Interrupted {
		t.Fatalf("study --dashboard, interrupted: exit %d\n%s", code, stderr)
	}
	s := clitest.ReadStudy(t, out)
	runs := clitest.FirstRuns(t, s)
	checkDrawn(t, w.dom, w.requests, url, report.StudyChartCount(s, runs))
	cells := tableRows(t, w.dom, "cells")
	if len(cells) != len(s.Cells) || len(s.Cells) != 1 {
		t.Fatalf("the page lists %d cells, study.json %d; want the one done", len(cells), len(s.Cells))
	}
	for i, c := range s.Cells {
		if cells[i][0] != c.Label || cells[i][2] != strconv.FormatFloat(c.TxnPerS, 'f', 1, 64) {
			t.Errorf("the page's cell %q: %s txn/s; study.json: %s %.1f", cells[i][0], cells[i][2], c.Label, c.TxnPerS)
		}
	}
}

// TestDashboardAddressRefused: an address in use, one that is not
// HOST:PORT, one off loopback without --dashboard-public, and the other
// flags without --dashboard are usage errors of one line, before any work
// (no database file made, nothing on stdout); with --dashboard-public the
// page is served and the command says who can read it.
func TestDashboardAddressRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(dir, "x.db")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", "train-events", "--dashboard=" + busy.Addr().String()}, "is already in use"},
		{[]string{"run", "train-events", "--dashboard=nonsense"}, "want HOST:PORT"},
		{[]string{"run", "train-events", "--dashboard", "127.0.0.1:8080"}, "--dashboard takes its address after =: --dashboard=127.0.0.1:8080"},
		{[]string{"run", "train-events", "--dashboard=0.0.0.0:0"}, "not a loopback address"},
		{[]string{"run", "train-events", "--dashboard=:0"}, "not a loopback address"},
		{[]string{"run", "train-events", "--dashboard-public"}, "--dashboard-public without --dashboard"},
		{[]string{"run", "train-events", "--dashboard-save", filepath.Join(dir, "d.html")}, "--dashboard-save without --dashboard"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--out", filepath.Join(dir, "st"), "--dashboard=0.0.0.0:0"}, "not a loopback address"},
		{[]string{"study", "train-events", "--vary", "clients=1,2", "--out", filepath.Join(dir, "st"), "--dashboard=" + busy.Addr().String()}, "is already in use"},
		{[]string{"capacity", "train-events", "--slo", "cycle.p99<=100ms", "--out", filepath.Join(dir, "cap"), "--dashboard=10.1.2.3:0"}, "not a loopback address"},
		{[]string{"suite", "run", clitest.Repo(t, "examples", "suite.toml"), "--tier", "smoke", "--out", filepath.Join(dir, "su"), "--dashboard=" + busy.Addr().String()}, "is already in use"},
	}
	for _, c := range cases {
		args := append(c.args, "--db", "sqlite:"+db)
		if c.args[0] == "suite" {
			args = c.args
		}
		code, stdout, stderr := clitest.Run(args...)
		if code != exitcode.Usage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and one line with %q", c.args, code, stdout, stderr, c.want)
		}
		if _, err := os.Stat(db); err == nil {
			t.Fatalf("%v: the database %s was made before the refusal", c.args, db)
		}
	}
	code, _, stderr := clitest.Run(append([]string{"run", "train-events", "--db", "sqlite:" + db, "--iterations", "5", "--clients", "1",
		"--dashboard=0.0.0.0:0", "--dashboard-public"}, clitest.Quick...)...)
	if code != exitcode.OK || !strings.Contains(stderr, "readable by whoever reaches this address (--dashboard-public)") {
		t.Errorf("--dashboard-public: exit %d, stderr %q", code, stderr)
	}
}
