package metrics

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"time"
)

// TestEncodeMatchesHdrHistogram: Encode writes byte for byte what
// hdrhistogram-go's Histogram.Encode writes (and so what txnbench saved
// before it had an encoder of its own), so results saved before load and
// what is saved now loads in older builds.
func TestEncodeMatchesHdrHistogram(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := NewHist()
	for range 20000 {
		random.Record(time.Duration(rng.ExpFloat64()*2000) * us)
	}
	huge := NewHist()
	huge.hist().RecordValues(1500, 1<<62) // a count of nine ZigZag bytes
	huge.hist().RecordValues(maxMicros, 1<<40)
	tests := []struct {
		name string
		h    *Hist
	}{
		{"empty", NewHist()},
		{"zero value", &Hist{}},
		{"lowest", histOf(1 * us)},
		{"one zero between", histOf(5*us, 7*us)},
		{"uniform", uniform(1, 10000)},
		{"wide", histOf(1*us, 1*time.Millisecond, 1*time.Second, time.Minute, 2*time.Hour)},
		{"random", random},
		{"huge counts", huge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := encodeHDR(t, tt.h.hist())
			got, err := tt.h.Encode()
			if err != nil || got != want {
				t.Fatalf("Encode = %q, %v\nhdrhistogram-go writes %q", got, err, want)
			}
			d, err := DecodeHist(got)
			if err != nil {
				t.Fatal(err)
			}
			assertSame(t, d, tt.h)
		})
	}
}

// TestTickAllocatesLittle: closing a progress interval as the runner does
// (Recorder.Tick, each interval's Summary, then Compact) allocates a few
// KB per op. It allocated about 1 MB per op: a new 190 KB counts array
// and, to encode it, a new zlib compressor (issue 18).
func TestTickAllocatesLittle(t *testing.T) {
	ops := []string{"add", "process", "archive", "cycle"}
	r := NewRecorder(ops)
	var kept []*Hist // as the result keeps them
	tick := func(i int) {
		for op := range ops {
			for j := range 500 {
				r.Record(op, j, time.Duration(100+j*j*(i%7+1))*us)
			}
		}
		for _, h := range r.Tick() {
			_ = h.Summary()
			if err := h.Compact(); err != nil {
				t.Fatal(err)
			}
			kept = append(kept, h)
		}
	}
	tick(0) // the first tick makes the encoder
	const ticks = 20
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for i := range ticks {
		tick(i + 1)
	}
	runtime.ReadMemStats(&after)
	perOp := float64(after.TotalAlloc-before.TotalAlloc) / ticks / float64(len(ops))
	t.Logf("%.1f KB allocated per op and tick", perOp/1024)
	if perOp > 32<<10 {
		t.Errorf("a tick allocates %.0f KB per op, want at most 32", perOp/1024)
	}
	for _, h := range kept {
		if h.h != nil || h.Count() != 500 {
			t.Fatalf("an interval histogram is not at rest or has %d samples, want 500", h.Count())
		}
	}
}
