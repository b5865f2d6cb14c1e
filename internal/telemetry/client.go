package telemetry

import (
	"bytes"
	"os"
	"syscall"
	"time"
)

// hostReading is txnbench's CPU time and memory and the machine's CPU
// counters at one moment.
type hostReading struct {
	at          time.Time
	cpu         time.Duration // txnbench's user + system time
	rssMB       float64
	busy, total uint64 // /proc/stat jiffies of all CPUs; 0 when unknown
}

// hostReader reads /proc with buffers it keeps, so sampling allocates
// nothing.
type hostReader struct {
	buf  []byte
	page float64
}

func newHostReader() *hostReader {
	return &hostReader{buf: make([]byte, 4096), page: float64(os.Getpagesize())}
}

func (h *hostReader) read() hostReading {
	r := hostReading{at: time.Now()}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if b := h.file("/proc/self/statm"); b != nil {
		// size resident shared ...: pages
		var f [2][]byte
		if fields(b, f[:]) == 2 {
			if n, ok := parseUint(f[1]); ok {
				r.rssMB = float64(n) * h.page / (1 << 20)
			}
		}
	}
	if b := h.file("/proc/stat"); b != nil {
		r.busy, r.total = parseProcStat(b)
	}
	return r
}

// file reads a small /proc file into the reader's buffer; nil on error.
func (h *hostReader) file(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	n, err := f.Read(h.buf)
	if err != nil && n == 0 {
		return nil
	}
	return h.buf[:n]
}

// parseProcStat reads the "cpu" line of /proc/stat: user nice system idle
// iowait irq softirq steal ...; busy is everything but idle and iowait.
func parseProcStat(b []byte) (busy, total uint64) {
	line := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		line = b[:i]
	}
	if !bytes.HasPrefix(line, []byte("cpu ")) {
		return 0, 0
	}
	var idle uint64
	var fs [9][]byte
	nf := fields(line, fs[:])
	// guest and guest_nice, after these, are already in user and nice
	for i, f := range fs[1:nf] {
		v, ok := parseUint(f)
		if !ok {
			return 0, 0
		}
		total += v
		if i == 3 || i == 4 { // idle, iowait
			idle += v
		}
	}
	return total - idle, total
}

// fields splits b on spaces into out, returning how many it filled.
func fields(b []byte, out [][]byte) int {
	n := 0
	for len(b) > 0 && n < len(out) {
		b = bytes.TrimLeft(b, " ")
		if len(b) == 0 {
			break
		}
		end := bytes.IndexByte(b, ' ')
		if end < 0 {
			end = len(b)
		}
		out[n] = b[:end]
		n++
		b = b[end:]
	}
	return n
}

// parseUint parses decimal digits without allocating; false on anything
// else or on overflow.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 || len(b) > 19 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	return n, true
}

// usage is the CPU txnbench used between two readings, in cores, and the
// machine's busy share of all CPUs.
func usage(a, b hostReading) (clientCores, machine float64) {
	if wall := b.at.Sub(a.at); wall > 0 {
		clientCores = float64(b.cpu-a.cpu) / float64(wall)
	}
	if dt := b.total - a.total; b.total > a.total {
		machine = float64(b.busy-a.busy) / float64(dt)
	}
	return clientCores, machine
}

// MachineTicks is the machine's busy and total CPU time so far, in clock
// ticks of all its CPUs (/proc/stat); 0, 0 when unknown.
func MachineTicks() (busy, total uint64) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, 0
	}
	return parseProcStat(b)
}
