package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/result"
)

// TestHeaderShowsData: the data a run found is its own header line, in
// the terminal and in HTML; a result without it has no such line.
func TestHeaderShowsData(t *testing.T) {
	r := &result.Result{Workload: "train-events", Settings: map[string]any{"rows": 200},
		Data: map[string]int64{"status": 215, "events": 215, "archived": 30}}
	var buf bytes.Buffer
	Header(&buf, r)
	if want := "\ndata       archived=30 events=215 status=215\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("header lacks %q:\n%s", want, buf.String())
	}
	buf.Reset()
	if err := HTML(&buf, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "archived=30 events=215 status=215") {
		t.Error("HTML lacks the data line")
	}
	r.Data = nil
	buf.Reset()
	Header(&buf, r)
	if strings.Contains(buf.String(), "data ") {
		t.Errorf("header without data:\n%s", buf.String())
	}
}
