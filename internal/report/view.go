package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/study"
)

// A View is a report page before it is written: one or more parts (a
// run's, a study's), each its text and its charts. HTML and StudyHTML
// write a View of one part; the live dashboard (internal/dashboard) writes
// the same parts again each interval, so its page and the final report
// are drawn by one renderer: html.tmpl and its script.
type View struct {
	parts []page
}

// RunView is the page of a run: what HTML writes.
func RunView(r *result.Result) View { return View{parts: []page{viewPart(runPage(r), runCharts(r))}} }

// StudyView is the page of a study: what StudyHTML writes.
func StudyView(s *study.Summary, runs []*result.Result, all [][]*result.Result) View {
	return View{parts: []page{viewPart(studyPage(s, runs, all), studyCharts(s, runs))}}
}

// Beside is v with w's parts after its own, on one page (a study's cells
// done so far, then the cell running).
func (v View) Beside(w View) View {
	return View{parts: append(append([]page(nil), v.parts...), w.parts...)}
}

// Titled is v with its first part retitled (e.g. "running: clients=8").
func (v View) Titled(title string) View {
	if len(v.parts) == 0 {
		return v
	}
	parts := append([]page(nil), v.parts...)
	parts[0].Title = title
	return View{parts: parts}
}

// Charts is how many charts the page draws.
func (v View) Charts() int {
	n := 0
	for _, p := range v.parts {
		n += countCharts(p.data)
	}
	return n
}

func viewPart(p page, data chartData) page {
	p.data = data
	return p
}

// document is what html.tmpl renders: the parts, the chart library and,
// on a live page, where its updates come from.
type document struct {
	Title   string
	Parts   []page
	ChartJS template.JS
	Version string // of Chart.js
	Live    *Live
}

// Live is what a live page needs to update itself without reloading:
// it fetches ContentPath (the parts as WriteContent writes them) again
// and again, each answer once the next interval is there.
type Live struct {
	ContentPath string // e.g. "/content": answers ?after=SEQ
	Seq         int64  // the update this page shows
	Final       bool   // the run is over: these are the final figures
	Status      string // a line on what the page shows
}

// Write writes v as one self-contained HTML page.
func (v View) Write(w io.Writer) error { return v.write(w, nil) }

// WriteLive writes v as a page that updates itself (see Live).
func (v View) WriteLive(w io.Writer, l Live) error { return v.write(w, &l) }

func (v View) write(w io.Writer, l *Live) error {
	parts, err := v.encoded()
	if err != nil {
		return err
	}
	d := document{Title: "txnbench", Parts: parts, ChartJS: template.JS(inlineChartJS()), Version: chartJSVersion, Live: l}
	if len(parts) > 0 {
		d.Title = parts[0].Title
	}
	if err := htmlTemplate.Execute(w, d); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	return nil
}

// WriteContent writes what changes from one update of a live page to the
// next: its status line and the parts, as the page holds them (the
// page's script draws their charts).
func (v View) WriteContent(w io.Writer, l Live) error {
	parts, err := v.encoded()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := htmlTemplate.ExecuteTemplate(&b, "content", document{Parts: parts, Live: &l}); err != nil {
		return fmt.Errorf("writing the HTML report: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// encoded is v's parts with their charts' JSON.
func (v View) encoded() ([]page, error) {
	out := make([]page, len(v.parts))
	for i, p := range v.parts {
		b, err := marshalData(p.data)
		if err != nil {
			return nil, err
		}
		p.Data = template.JS(b)
		out[i] = p
	}
	return out, nil
}
