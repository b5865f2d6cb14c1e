package outputs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
	"github.com/txnbench/txnbench/internal/testutil"
)

// hostileOp is an op name that would run script if a page pasted it in.
const hostileOp = `</script><img src=x onerror=alert(1)>`

// withTelemetry gives a real result a telemetry block shaped like the one
// a PostgreSQL run records, one sample per interval, and renames its
// archive op to a hostile name.
func withTelemetry(r *result.Result) {
	for i := range r.Ops {
		if r.Ops[i].Name == "archive" {
			r.Ops[i].Name = hostileOp
			r.Ops[i].ServerMS = r.Ops[i].Mean / 3
		}
	}
	t := &result.Telemetry{
		Database: map[string]int64{"xact_commit": 1000, "xact_rollback": 3, "tup_inserted": 9000, "blks_hit": 50000, "blks_read": 70, "wal_bytes": 4 << 20},
		Waits: &result.Waits{SampleEveryMS: 100, Samples: 30, ActiveSamples: 40,
			Classes: []result.WaitShare{{Name: "CPU", Samples: 30, Share: 0.75}, {Name: "IO", Samples: 10, Share: 0.25}},
			Events:  []result.WaitShare{{Name: "IO:WALSync", Samples: 10, Share: 0.25}}},
		Statements: []result.Statement{{Op: hostileOp, Query: "/* txnbench op=archive */ DELETE ... </script>", Calls: 100, Rows: 900, TotalMS: 120, MeanMS: 1.2}},
	}
	for i, iv := range r.Intervals {
		for j := range iv.Ops {
			if iv.Ops[j].Name == "archive" {
				iv.Ops[j].Name = hostileOp
			}
		}
		var n int64
		for _, o := range iv.Ops {
			n += o.Count
		}
		t.Series = append(t.Series, result.Sample{
			ElapsedS:  iv.ElapsedS,
			Database:  map[string]int64{"xact_commit": n, "xact_rollback": int64(i % 2), "tup_inserted": 10 * n, "blks_hit": 50 * n, "blks_read": int64(i), "wal_bytes": 4096 * n},
			Waits:     map[string]int64{"CPU": 3, "IO": int64(1 + i%3)},
			ClientCPU: 0.2, ClientRSSMB: 40 + float64(i), MachineCPU: 0.5,
		})
	}
	r.Telemetry = t
}

// headless runs chromium headless (its own profile, no sandbox, no GPU)
// with args until ctx ends, and returns its stdout; an error carries its
// stderr.
func headless(ctx context.Context, t *testing.T, chromium string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, chromium, append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--user-data-dir=" + t.TempDir()}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%v\n%s", err, stderr.String())
	}
	return out, nil
}

// drawn renders page in headless Chromium and returns what the page says
// it drew, failing the test on blank or failed charts, and on content
// wider than the page (at most 1400 px and its padding, in a window wider
// than that: a table too wide scrolls on its own). With png, the same
// Chromium also keeps a picture of the page there (see checkPNG): one
// browser start for both.
func drawn(t *testing.T, chromium, page, png string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	args := []string{"--virtual-time-budget=10000", "--dump-dom"}
	if png != "" {
		args = append(args, "--hide-scrollbars", "--window-size=1280,4000", "--screenshot="+png)
	} else {
		args = append(args, "--window-size=1920,1080")
	}
	out, err := headless(ctx, t, chromium, append(args, "file://"+page)...)
	if err != nil {
		t.Fatalf("chromium --dump-dom %s: %v", page, err)
	}
	if png != "" {
		t.Logf("screenshot of %s: %s", filepath.Base(page), png)
		checkPNG(t, png)
	}
	dom := string(out)
	tag := regexp.MustCompile(`<html[^>]*>`).FindString(dom)
	attr := func(name string) (string, bool) {
		m := regexp.MustCompile(name + `="([^"]*)"`).FindStringSubmatch(tag)
		if m == nil {
			return "", false
		}
		return m[1], true
	}
	n, ok := attr("data-charts-drawn")
	if !ok {
		t.Fatalf("%s: the page did not finish drawing (no data-charts-drawn on %s)", page, tag)
	}
	for _, a := range []string{"data-charts-blank", "data-charts-failed", "data-charts-empty"} {
		if v, _ := attr(a); v != "" {
			t.Errorf("%s: %s=%q", page, a, v)
		}
	}
	count, err := strconv.Atoi(n)
	if err != nil {
		t.Fatalf("data-charts-drawn=%q", n)
	}
	cw, _ := attr("data-content-width")
	bw, _ := attr("data-body-width")
	content, cerr := strconv.Atoi(cw)
	body, berr := strconv.Atoi(bw)
	if cerr != nil || berr != nil || content > body || body > 1400+2*24 {
		t.Errorf("%s: content %s px wide in a page of %s px (at most 1448: 1400 and the padding)", filepath.Base(page), cw, bw)
	}
	return count, dom
}

// checkPNG checks that the picture at path is a real page: a PNG of the
// window's size, much of it not background.
func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 4000 {
		t.Errorf("%s is %dx%d, want 1280x4000", path, b.Dx(), b.Dy())
	}
	inked, colors := inkOf(img)
	// A page of tables and a dozen charts covers well over 2% of the
	// window and uses many colours; a blank or error page does not.
	if inked < 0.02 || colors < 50 {
		t.Errorf("%s looks empty: %.1f%% of pixels not white, %d colours", path, 100*inked, colors)
	}
}

// inkOf is the share of pixels that are not white and the number of
// distinct colours, sampled every 4th pixel.
func inkOf(img image.Image) (float64, int) {
	b := img.Bounds()
	var ink, all int
	colors := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			all++
			if r < 0xf000 || g < 0xf000 || bl < 0xf000 {
				ink++
			}
			if len(colors) < 1000 {
				colors[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			}
		}
	}
	return float64(ink) / float64(all), len(colors)
}

// TestHTMLReportInChromium runs train-events on SQLite with --html, gives
// its result telemetry, renders it with report --html, runs a small study
// (study.html), and opens the pages in headless Chromium: every chart must
// draw, none blank, and the hostile op name must stay text.
func TestHTMLReportInChromium(t *testing.T) {
	t.Parallel()
	chromium := testutil.NeedChromium(t)
	artifacts := testutil.Artifacts(t)
	dir := t.TempDir()
	runJSON, runHTML := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.html")
	args := append([]string{"run", "train-events", "--clients", "2", "--duration", "3s", "--progress", "500ms", "--seed", "5",
		"--json", runJSON, "--html", runHTML}, clitest.Quick...)
	clitest.MustRun(t, args...)
	r := clitest.LoadResult(t, runJSON)
	if len(r.Intervals) < 4 {
		t.Fatalf("%d intervals, want at least 4", len(r.Intervals))
	}
	n, runDOM := drawn(t, chromium, runHTML, "")
	if n != report.ChartCount(r) || n < 5 {
		t.Errorf("run --html: %d charts drawn, want %d", n, report.ChartCount(r))
	}
	// SQLite has no sessions: nothing was sampled from pg_stat_activity
	if len(r.SlowOps) == 0 || !strings.Contains(runDOM, "slowest ops") || strings.Contains(runDOM, "pg_stat_activity") {
		t.Errorf("run --html on SQLite: %d slow ops; the page must list them and name no pg_stat_activity", len(r.SlowOps))
	}

	withTelemetry(r)
	telJSON, repHTML := filepath.Join(dir, "telemetry.json"), filepath.Join(dir, "report.html")
	if err := r.Save(telJSON); err != nil {
		t.Fatal(err)
	}
	clitest.MustRun(t, "report", "--html", repHTML, telJSON)
	n, dom := drawn(t, chromium, repHTML, filepath.Join(artifacts, "report.png"))
	if want := report.ChartCount(r); n != want || n < 12 {
		t.Errorf("report with telemetry: %d charts drawn, want %d", n, want)
	}
	// one numeric time axis: the bars over time too, not categories
	for _, id := range []string{"errors", "waits", "throughput", "db-xact"} {
		if !strings.Contains(dom, `data-chart="`+id+`" data-x="linear"`) {
			t.Errorf("chart %s is not on the numeric time axis", id)
		}
	}
	if strings.Contains(dom, "<img") {
		t.Error("the hostile op name became an element")
	}
	if !strings.Contains(dom, "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the hostile op name is not shown as text")
	}

	out := filepath.Join(dir, "study")
	// two varied settings, repeated and compared with the first: its
	// tables are wider than the page (they made study.html 1544 px wide)
	args = append([]string{"study", "train-events", "--duration", "500ms", "--progress", "250ms", "--settle", "0", "--seed", "5",
		"--vary", "clients=1,2,4", "--vary", "conn=per-txn", "--repeat", "2", "--compare", "first", "--out", out}, clitest.Quick...)
	clitest.MustRun(t, args...)
	s := clitest.ReadStudy(t, out)
	runs := clitest.FirstRuns(t, s)
	want := report.StudyChartCount(s, runs)
	if n, _ := drawn(t, chromium, filepath.Join(out, "study.html"), ""); n != want || n < 6 {
		t.Errorf("study.html: %d charts drawn, want %d", n, want)
	}
	// report renders the same page from the study's directory
	again := filepath.Join(dir, "again.html")
	clitest.MustRun(t, "report", out, "--html", again)
	if n, _ := drawn(t, chromium, again, filepath.Join(artifacts, "study.png")); n != want {
		t.Errorf("report of the study: %d charts drawn, want %d", n, want)
	}
}

func TestReportHTMLArguments(t *testing.T) {
	dir := t.TempDir()
	res := filepath.Join(dir, "r.json")
	clitest.MustRun(t, append([]string{"run", "train-events", "--iterations", "20", "--clients", "1", "--json", res}, clitest.Quick...)...)
	// a study directory that moved: its results are found beside study.json
	sdir := filepath.Join(dir, "moved")
	os.Mkdir(sdir, 0o755)
	sum := study.Summary{Format: study.Format, Workload: "train-events", Repeat: 1,
		Cells: []study.CellSummary{{Label: "clients=1", Settings: []study.Setting{{Key: "clients", Value: "1"}}, Results: []string{"elsewhere/cell01-rep1.json"}, TxnPerS: 10, InvariantsOK: true}}}
	b, _ := json.Marshal(sum)
	os.WriteFile(filepath.Join(sdir, "study.json"), b, 0o644)
	rb, _ := os.ReadFile(res)
	os.WriteFile(filepath.Join(sdir, "cell01-rep1.json"), rb, 0o644)

	cases := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"report", "--html", "/nonexistent/dir/x.html", res}, exitcode.Usage, "directory /nonexistent/dir does not exist"},
		{[]string{"run", "train-events", "--html", "/nonexistent/dir/x.html"}, exitcode.Usage, "--html /nonexistent/dir/x.html: directory /nonexistent/dir does not exist"},
		{[]string{"report", filepath.Join(dir, "nostudy") + "/"}, exitcode.Usage, "no such file"},
		{[]string{"report", sdir, res}, exitcode.Usage, "is a study: report one study at a time"},
		{[]string{"report", sdir, "--json", filepath.Join(dir, "m.json")}, exitcode.Usage, "a study is already saved"},
		{[]string{"report", sdir, "--html", filepath.Join(dir, "s.html")}, exitcode.OK, "HTML report written to"},
		{[]string{"report", filepath.Join(sdir, "study.json"), "--html", filepath.Join(dir, "s2.html")}, exitcode.OK, "HTML report written to"},
		{[]string{"report", res, "--html", filepath.Join(dir, "r.html")}, exitcode.OK, "HTML report written to"},
	}
	for _, c := range cases {
		code, _, stderr := clitest.Run(c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
	page := clitest.Read(t, filepath.Join(dir, "s.html"))
	// the moved study's result was found: its throughput over time is there
	if !bytes.Contains(page, []byte(`"cells-throughput-time"`)) {
		t.Error("the study page has no charts over time: the cell's result was not found beside study.json")
	}
	// no temporary files are left beside the outputs
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
