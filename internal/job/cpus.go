package job

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// cpuParts are the parts --cpus places, in the order notes name them.
var cpuParts = []string{"server", "pooler", "clients"}

// CPUs is --cpus: the CPUs each part of the run may use (a part left out
// may use any).
type CPUs map[string][]int

// ParseCPUs parses server=0-1,pooler=2,clients=3 (lists like 0,2 need
// their own part=: server=0-1,server=3 is refused) against the CPUs this
// process may use.
func ParseCPUs(s string) (CPUs, error) {
	allowed, err := allowedCPUs()
	if err != nil {
		return nil, fmt.Errorf("reading the CPUs txnbench may use: %w", err)
	}
	c := CPUs{}
	for _, kv := range strings.Split(s, ",") {
		part, list, ok := strings.Cut(strings.TrimSpace(kv), "=")
		if !ok || !slices.Contains(cpuParts, part) {
			return nil, fmt.Errorf("%q: want PART=CPUS with PART server, pooler or clients, e.g. server=0-1,pooler=2,clients=3", kv)
		}
		if _, dup := c[part]; dup {
			return nil, fmt.Errorf("%s given twice", part)
		}
		lo, hi, isRange := strings.Cut(list, "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a || b >= 1024 {
			return nil, fmt.Errorf("%s=%s: want a CPU number or a range such as 0-1", part, list)
		}
		for cpu := a; cpu <= b; cpu++ {
			if !slices.Contains(allowed, cpu) {
				return nil, fmt.Errorf("%s=%s: CPU %d is not one txnbench may use (it may use %s)", part, list, cpu, cpuList(allowed))
			}
			c[part] = append(c[part], cpu)
		}
	}
	return c, nil
}

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// Notes says which of the run's parts (pooler: whether it has one) got no
// CPU of their own: left out, or sharing one with another part. Without
// --cpus (nil) it says nothing.
func (c CPUs) Notes(pooler bool) []string {
	if c == nil {
		return nil
	}
	var notes []string
	for i, p := range cpuParts {
		if p == "pooler" && !pooler {
			continue
		}
		cpus, ok := c[p]
		if !ok {
			notes = append(notes, fmt.Sprintf("--cpus gave the %s no CPUs: it runs on any", p))
			continue
		}
		for _, q := range cpuParts[i+1:] {
			if q == "pooler" && !pooler {
				continue
			}
			for _, cpu := range cpus {
				if slices.Contains(c[q], cpu) {
					notes = append(notes, fmt.Sprintf("--cpus: the %s and the %s share CPU %d", p, q, cpu))
					break
				}
			}
		}
	}
	return notes
}

// pin sets the CPUs of process pid and of its children, every thread
// (a thread started later inherits its creator's).
func (c CPUs) pin(part string, pid int) error {
	cpus, ok := c[part]
	if !ok || pid <= 0 {
		return nil
	}
	pids := append([]int{pid}, children(pid)...)
	for _, p := range pids {
		tasks, _ := filepath.Glob("/proc/" + strconv.Itoa(p) + "/task/*")
		for _, t := range tasks {
			tid, _ := strconv.Atoi(filepath.Base(t))
			if err := setAffinity(tid, cpus); err != nil && p == pid {
				return fmt.Errorf("--cpus %s: setting the CPUs of process %d: %w", part, pid, err)
			}
		}
	}
	return nil
}

// children are pid's child processes, from /proc.
func children(pid int) []int {
	var out []int
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
