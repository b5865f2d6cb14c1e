package report

import (
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/redact"
	"github.com/txnbench/txnbench/internal/result"
)

// runLine is the run's configuration in one line: the one description of
// how a run ran, for the text header and the HTML page alike. Ramp, rate,
// latency limit, isolation and max tries show when set.
func runLine(r *result.Result) string {
	c := r.Config
	parts := []string{fmt.Sprintf("%d clients", c.Clients)}
	if c.Duration != "" {
		parts = append(parts, "duration "+c.Duration)
	}
	if c.Iterations > 0 {
		parts = append(parts, fmt.Sprintf("%d iterations", c.Iterations))
	}
	if c.Ramp != "" {
		parts = append(parts, "ramp "+c.Ramp)
	}
	if c.Warmup != "" {
		parts = append(parts, "warm-up "+c.Warmup)
	}
	if c.Rate > 0 {
		parts = append(parts, "rate "+fixed(c.Rate, 1)+"/s")
	}
	if c.LatencyLimit != "" {
		parts = append(parts, "latency limit "+c.LatencyLimit)
	}
	if c.Conn != "" {
		conn := "conn " + c.Conn
		if p := c.Pool; p != nil {
			conn += fmt.Sprintf(" (max %d, min %d)", p.Max, p.Min)
		}
		parts = append(parts, conn)
	}
	if c.Via != "" && c.Via != "direct" {
		parts = append(parts, "via "+redact.URL(c.Via))
	}
	if c.Isolation != "" {
		parts = append(parts, "isolation "+result.IsolationText(c.Isolation, c.IsolationDefault))
	}
	if c.MaxTries > 0 {
		parts = append(parts, fmt.Sprintf("max tries %d", c.MaxTries))
	}
	parts = append(parts, fmt.Sprintf("seed %d", c.Seed))
	if r.Sources > 1 {
		parts = append(parts, fmt.Sprintf("merged from %d results", r.Sources))
	}
	return strings.Join(parts, ", ")
}
