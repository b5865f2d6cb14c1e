package outputs

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/testutil"
)

// dashboard is what TestGrafanaDashboard reads of deploy/grafana/txnbench.json.
type dashboard struct {
	Title         string `json:"title"`
	SchemaVersion int    `json:"schemaVersion"`
	Templating    struct {
		List []struct {
			Name, Type, Query any
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			Expr string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

// selectorRx matches a series selector of a PromQL query: a txnbench
// metric and its label matchers.
var (
	selectorRx = regexp.MustCompile(`(txnbench_[a-z_]+)(\{([^}]*)\})?`)
	matcherRx  = regexp.MustCompile(`^\s*([a-z_]+)\s*(=~|!=|=)\s*"([^"]*)"\s*$`)
	sampleRx   = regexp.MustCompile(`^(txnbench_[a-z_]+)(\{(.*)\})? `)
	labelRx    = regexp.MustCompile(`([a-z_]+)="((?:[^"\\]|\\.)*)"`)
)

// scraped are the samples of a scrape: per metric, each sample's labels.
type scraped map[string][]map[string]string

func parseScrape(text string) scraped {
	s := scraped{}
	for _, line := range strings.Split(text, "\n") {
		m := sampleRx.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		labels := map[string]string{}
		for _, l := range labelRx.FindAllStringSubmatch(m[3], -1) {
			labels[l[1]] = l[2]
		}
		s[m[1]] = append(s[m[1]], labels)
	}
	return s
}

// missing is the selectors of expr that no scraped sample matches; a
// matcher on a dashboard variable ($cell) matches anything.
func (s scraped) missing(expr string) []string {
	var out []string
	for _, sel := range selectorRx.FindAllStringSubmatch(expr, -1) {
		var ok bool
		for _, labels := range s[sel[1]] {
			if matches(sel[3], labels) {
				ok = true
				break
			}
		}
		if !ok {
			out = append(out, sel[0])
		}
	}
	return out
}

func matches(matchers string, labels map[string]string) bool {
	if matchers == "" {
		return true
	}
	for _, m := range strings.Split(matchers, ",") {
		p := matcherRx.FindStringSubmatch(m)
		if p == nil || strings.Contains(p[3], "$") {
			continue
		}
		v := labels[p[1]]
		switch p[2] {
		case "=":
			if v != p[3] {
				return false
			}
		case "!=":
			if v == p[3] {
				return false
			}
		case "=~":
			if !regexp.MustCompile("^(?:" + p[3] + ")$").MatchString(v) {
				return false
			}
		}
	}
	return true
}

// TestGrafanaDashboard: deploy/grafana/txnbench.json is a valid dashboard
// (JSON, a schemaVersion, a datasource variable every panel and query
// uses, panels with targets), and every series its queries select exists,
// with the labels it selects on, in a real run's --metrics-addr endpoint
// (train-events on SQLite at a --rate, through a pool, so lag and
// pool_wait exist).
func TestGrafanaDashboard(t *testing.T) {
	b := clitest.Read(t, clitest.Repo(t, "deploy", "grafana", "txnbench.json"))
	var d dashboard
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	if d.Title == "" || d.SchemaVersion < 30 {
		t.Errorf("title %q, schemaVersion %d", d.Title, d.SchemaVersion)
	}
	hasDS := false
	for _, v := range d.Templating.List {
		hasDS = hasDS || v.Name == "datasource" && v.Type == "datasource" && v.Query == "prometheus"
	}
	if !hasDS {
		t.Error("no datasource variable of type datasource, query prometheus")
	}
	var exprs []string
	for _, p := range d.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 || p.Datasource.UID != "${datasource}" {
			t.Errorf("panel %q: %d targets, datasource %q", p.Title, len(p.Targets), p.Datasource.UID)
		}
		for _, tg := range p.Targets {
			if !selectorRx.MatchString(tg.Expr) {
				t.Errorf("panel %q: query %q selects no txnbench series", p.Title, tg.Expr)
			}
			exprs = append(exprs, tg.Expr)
		}
	}
	if len(exprs) < 10 {
		t.Fatalf("%d queries", len(exprs))
	}

	dir := t.TempDir()
	cmd, _, stderr := clitest.Start(t, append([]string{"run", "train-events", "--db", "sqlite:" + filepath.Join(dir, "s.db"), "--duration", "60s", "--clients", "2",
		"--rate", "50", "--conn", "pool", "--pool-max", "1", "--progress", "100ms", "--metrics-addr", "127.0.0.1:0"}, clitest.Quick...)...)
	urlRx := regexp.MustCompile(`metrics on (http://\S+/metrics)`)
	var url string
	if !testutil.Poll(60*time.Second, 20*time.Millisecond, func() bool {
		m := urlRx.FindStringSubmatch(stderr.String())
		if m != nil {
			url = m[1]
		}
		return url != ""
	}) {
		t.Fatalf("no metrics address:\n%s", stderr.String())
	}
	var last []string
	var text string
	ok := testutil.Poll(60*time.Second, 100*time.Millisecond, func() bool {
		resp, err := http.Get(url)
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		text = string(body)
		s := parseScrape(text)
		last = nil
		for _, e := range exprs {
			last = append(last, s.missing(e)...)
		}
		return len(last) == 0
	})
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if !ok {
		t.Errorf("series the dashboard queries that the endpoint does not serve: %v\n%s", last, text)
	}
}
