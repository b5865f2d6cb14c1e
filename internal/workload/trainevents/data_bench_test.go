package trainevents

import (
	"math/rand/v2"
	"testing"
	"time"
)

// BenchmarkPayload measures the cost of generating one event (payload and
// flat fields) in batches of the default maximum size, as add does.
func BenchmarkPayload(b *testing.B) {
	const size = 100
	now := time.Date(2025, 12, 5, 12, 0, 0, 0, time.UTC)
	g := generator{rng: rand.New(rand.NewPCG(1, 2)), now: func() time.Time { return now }}
	buf := new(batch)
	g.fill(buf, size) // grow the buffers first
	var bytes int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.fill(buf, size)
		bytes += len(buf.buf)
	}
	b.StopTimer()
	n := float64(b.N) * size
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(bytes)/n, "B/event")
}
