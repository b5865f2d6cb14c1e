package telemetry

import (
	"math"
	"strings"
	"testing"
)

func TestWaitCounter(t *testing.T) {
	w := newWaitCounter()
	w.add("CPU=3,Lock:transactionid=2,IO:WALSync=1")
	w.add("")
	w.add("CPU=1,Lock:relation=4,bad,=3,x=-1,y=z")
	if w.samples != 3 || w.active != 11 || w.lockSamples != 6 || w.maxLock != 4 {
		t.Fatalf("samples %d, active %d, lock samples %d, max lock %d", w.samples, w.active, w.lockSamples, w.maxLock)
	}
	iv := w.takeInterval()
	if iv["CPU"] != 4 || iv["Lock"] != 6 || iv["IO"] != 1 || len(iv) != 3 {
		t.Errorf("interval %v", iv)
	}
	if w.takeInterval() != nil {
		t.Error("second interval is not empty")
	}
	s := w.summary(100)
	if s.Classes[0].Name != "Lock" || s.Classes[0].Samples != 6 || s.Classes[1].Name != "CPU" || s.Events[0].Name != "CPU" {
		t.Errorf("summary %+v", s)
	}
	var sum float64
	for _, c := range s.Classes {
		sum += c.Share
	}
	if math.Abs(sum-1) > 1e-9 {
		t.Errorf("shares sum to %g", sum)
	}
}

// FuzzWaitCounter: any sample text is counted without panicking, and the
// classes always add up to the active samples.
func FuzzWaitCounter(f *testing.F) {
	for _, s := range []string{"CPU=3,Lock:tuple=2", "", ",,,", "a:b:c=1", "=", "x=9999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, agg string) {
		w := newWaitCounter()
		w.add(agg)
		w.add(agg)
		var n int64
		for _, v := range w.takeInterval() {
			n += v
		}
		if n != w.active || w.lockSamples > w.active {
			t.Fatalf("%q: classes hold %d of %d active, %d lock", agg, n, w.active, w.lockSamples)
		}
	})
}

func TestParseProcStat(t *testing.T) {
	b := []byte("cpu  100 5 50 800 20 3 2 0 7 0\ncpu0 1 2 3 4 5 6 7 8 9 10\n")
	busy, total := parseProcStat(b)
	if total != 980 || busy != 160 {
		t.Errorf("busy %d total %d, want 160 of 980", busy, total)
	}
	for _, bad := range []string{"", "cpu0 1 2", "cpu a b c", "intr 5"} {
		if busy, total := parseProcStat([]byte(bad)); busy != 0 || total != 0 {
			t.Errorf("%q: busy %d total %d", bad, busy, total)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add("cpu  100 5 50 800 20 3 2 0 7 0\n")
	f.Add("cpu 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		busy, total := parseProcStat([]byte(s))
		if busy > total {
			t.Fatalf("%q: busy %d > total %d", s, busy, total)
		}
		if !strings.HasPrefix(s, "cpu ") && total != 0 {
			t.Fatalf("%q: not a cpu line, total %d", s, total)
		}
	})
}

// TestHostReader reads this process's CPU and memory and the machine's.
func TestHostReader(t *testing.T) {
	h := newHostReader()
	a := h.read()
	// Spin for at least 20 ms and until the machine's counters (clock
	// ticks) have moved: on a loaded machine a short spin may see none.
	b := h.read()
	for end, limit := a.at.Add(20e6), a.at.Add(5e9); b.at.Before(limit) && (b.at.Before(end) || b.total == a.total || b.cpu == a.cpu); {
		b = h.read()
	}
	client, machine := usage(a, b)
	if b.rssMB <= 0 || client <= 0 || client > 64 || machine <= 0 || machine > 1 {
		t.Errorf("rss %.1f MB, client %.3f cores, machine %.3f", b.rssMB, client, machine)
	}
	if n := testing.AllocsPerRun(20, func() { h.read() }); n > 8 {
		t.Errorf("a reading allocates %.0f times", n)
	}
}
