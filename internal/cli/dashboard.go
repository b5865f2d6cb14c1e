package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"
	"github.com/txnbench/txnbench/internal/dashboard"
	"github.com/txnbench/txnbench/internal/job"
	"github.com/txnbench/txnbench/internal/live"
	"github.com/txnbench/txnbench/internal/report"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// dashboardFlags are --dashboard, --dashboard-public and --dashboard-save,
// on run, study, capacity and suite run (docs/dashboard.md).
type dashboardFlags struct {
	addr   string // "" for none
	public bool
	save   string
}

func (f *dashboardFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.addr, "dashboard", "", "serve a live page at http://HOST:PORT/ while this runs (--dashboard alone: "+dashboard.DefaultAddr+", a free port on loopback; the URL is printed): the HTML report so far, updated every --progress interval without reloading; give an address as --dashboard=HOST:PORT (docs/dashboard.md)")
	fs.Lookup("dashboard").NoOptDefVal = dashboard.DefaultAddr
	fs.BoolVar(&f.public, "dashboard-public", false, "let --dashboard listen on an address off loopback (e.g. --dashboard=0.0.0.0:8080): the page is then readable by whoever reaches it")
	fs.StringVar(&f.save, "dashboard-save", "", "with --dashboard: write the dashboard's final page, as a self-contained HTML file, here when the run ends")
	declareFlags(fs, kindControl, "dashboard", "dashboard-public", "dashboard-save")
}

// dashboardArg is a clearer err for a command line refused because of
// "--dashboard HOST:PORT": the flag's value must follow "=" (so that
// --dashboard alone needs none), and the address was taken for an argument.
func dashboardArg(args []string, err error) error {
	var ue usageError
	if !errors.As(err, &ue) && !isCobraUsage(err) {
		return err
	}
	for i, arg := range args[:max(len(args)-1, 0)] {
		next := args[i+1]
		if arg == "--dashboard" && strings.Contains(next, ":") && validAddr(next) {
			return usage(fmt.Errorf("--dashboard takes its address after =: --dashboard=%s (--dashboard alone: %s, a free port on loopback)", next, dashboard.DefaultAddr))
		}
	}
	return err
}

func validAddr(s string) bool {
	_, _, err := live.ParseAddr(s)
	return err == nil
}

// validate checks the flags without listening: a bad address, one off
// loopback without --dashboard-public, or a flag without --dashboard is a
// usage error.
func (f *dashboardFlags) validate() error {
	if f.addr == "" {
		switch {
		case f.public:
			return usage(fmt.Errorf("--dashboard-public without --dashboard: add --dashboard=HOST:PORT"))
		case f.save != "":
			return usage(fmt.Errorf("--dashboard-save without --dashboard: add --dashboard (the page saved is the dashboard's)"))
		}
		return nil
	}
	if err := dashboard.CheckAddr(f.addr, f.public); err != nil {
		return usage(fmt.Errorf("--dashboard %q: %w", f.addr, err))
	}
	return nil
}

// liveDashboard is the --dashboard of a command: its server and the view
// of the figures last shown. A nil *liveDashboard does nothing. Within a
// suite its scenarios share the suite's (app.dash), which they do not own:
// only its owner makes the final update, saves and closes it.
type liveDashboard struct {
	srv   *dashboard.Server
	save  string
	owned bool
	a     *app

	mu    sync.Mutex
	last  report.View // the figures last shown, saved at the end
	study *report.View
	sum   *study.Summary // the study so far, beside its running cell
	scope string         // "" or the suite's scenario running
}

// openDashboard listens on f's address and serves the dashboard until
// close; nil without --dashboard. Inside a suite, the suite's dashboard is
// used whatever f says. Call it before anything starts: a busy port fails
// the command (exit 2) before a server is started for it.
func (a *app) openDashboard(f dashboardFlags) (*liveDashboard, error) {
	if a.dash != nil {
		return &liveDashboard{srv: a.dash.srv, a: a, scope: a.dash.scope}, nil
	}
	if f.addr == "" {
		return nil, nil
	}
	srv, err := dashboard.Listen(f.addr, f.public)
	if err != nil {
		return nil, usage(fmt.Errorf("--dashboard: %w", err))
	}
	if srv.Public() {
		a.status("dashboard on " + srv.URL() + ": readable by whoever reaches this address (--dashboard-public)")
	} else {
		a.status("dashboard on " + srv.URL() + " (updated every --progress interval)")
	}
	return &liveDashboard{srv: srv, save: f.save, owned: true, a: a}, nil
}

// watch makes s's run feed the page each interval: the run so far, as
// job.Spec.Live assembles it, beside the study so far in a study.
func (d *liveDashboard) watch(s *job.Spec, cell string) {
	if d == nil {
		return
	}
	every := s.Runner.Progress
	s.Live = func(r *result.Result) {
		d.mu.Lock()
		defer d.mu.Unlock()
		v := report.RunView(r)
		status := fmt.Sprintf("Live: %s measured, %.1f transactions/s so far; updated every %s. The figures so far: the invariants are checked when the run ends.",
			seconds(r.MeasuredS), r.TxnPerS(), every)
		var doc any = r
		if d.study != nil || cell != "" {
			v = v.Titled("running: cell " + cell + " (the run so far)")
			if d.study != nil {
				v = d.study.Beside(v)
			}
			doc = studyDoc{Study: d.sum, Running: r, Cell: cell}
			status = "Study: " + studyDone(d.sum) + "; cell " + cell + " running. " + status
		}
		d.show(v, doc, status, false)
	}
}

// studyDoc is /result.json during a study: the study so far (nil before
// its first run ends) and the run of the cell running.
type studyDoc struct {
	Study   *study.Summary `json:"study"`
	Cell    string         `json:"cell,omitempty"`
	Running *result.Result `json:"running,omitempty"`
}

// runOver is how a run ended, for the page's last status line.
func runOver(r *result.Result) string {
	if r.Interrupted {
		return "the run was interrupted, invariants " + r.Invariants.Status()
	}
	return "the run is over, invariants " + r.Invariants.Status()
}

// studyOver is how a study ended, for the page's last status line.
func studyOver(ctx context.Context, s *study.Summary) string {
	if ctx.Err() != nil {
		return "the study was interrupted, " + studyDone(s)
	}
	return "the study is over, " + studyDone(s)
}

func studyDone(s *study.Summary) string {
	if s == nil {
		return "no cell done yet"
	}
	if len(s.Cells) == 1 {
		return "1 cell done"
	}
	return fmt.Sprintf("%d cells done", len(s.Cells))
}

func seconds(s float64) string {
	return (time.Duration(s * float64(time.Second))).Round(100 * time.Millisecond).String()
}

// studySoFar shows the study so far (as study.html would show it), the
// cells done; the next run is shown beside it.
func (d *liveDashboard) studySoFar(s *study.Summary, firsts []*result.Result, all [][]*result.Result) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	v := report.StudyView(s, firsts, all)
	d.study, d.sum = &v, s
	d.show(v, studyDoc{Study: s}, "Study: "+studyDone(s)+"; the next cell is starting.", false)
}

// runDone is done for a run: its result's page, made only when there is
// a dashboard to show it (issue 40: a run without one built the whole
// page, a quarter of a megabyte, as it ended).
func (d *liveDashboard) runDone(r *result.Result) error {
	if d == nil {
		return nil
	}
	return d.done(report.RunView(r), r, runOver(r))
}

// done shows the final figures of what the command ran: a run's result
// or the study's summary, as its files have them, and saves the page with
// --dashboard-save. Within a suite they are the scenario's, not yet final.
func (d *liveDashboard) done(v report.View, doc any, what string) error {
	if d == nil {
		return nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.owned {
		d.show(v, doc, "Scenario over: "+what+". The next one is starting.", false)
		d.a.dash.last = v
		return nil
	}
	d.show(v, doc, "Final: "+what+". These are the saved figures; the page stays until txnbench exits.", true)
	return d.saveFinal(v)
}

// saveFinal writes v with --dashboard-save: the page as it ends, without
// its live script (as --html writes a report).
func (d *liveDashboard) saveFinal(v report.View) error {
	if d.save == "" {
		return nil
	}
	if err := writeAtomic(d.save, func(w io.Writer) error { return v.Write(w) }); err != nil {
		return fmt.Errorf("--dashboard-save: %w", err)
	}
	d.a.status("dashboard's final page written to " + d.save)
	return nil
}

// show puts v on the page (d.mu held).
func (d *liveDashboard) show(v report.View, doc any, status string, final bool) {
	if d.scope != "" {
		status = d.scope + ". " + status
	}
	d.last = v
	if err := d.srv.Update(v, doc, status, final); err != nil {
		d.a.status("dashboard: " + err.Error())
	}
}

// close stops serving, once the open pages have the final figures (see
// dashboard.Server.Close); a suite's scenario leaves the suite's open.
func (d *liveDashboard) close() {
	if d != nil && d.owned {
		d.srv.Close()
	}
}
