package runner

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/workload"
)

// clientBase is about what every client costs besides its workload's
// buffers: its goroutine's stack, its random stream and op closures, and a
// connection's read and write buffers in the driver.
const clientBase = 64 << 10

// CheckMemory refuses a run whose clients would need more memory than the
// machine has: clients x the workload's ClientMemory (when it tells) plus
// clientBase each. The error names the flags to lower and both amounts:
// clients says what set cfg.Clients as the user gave it ("--clients 8",
// pgbench's "-c/--client 8", or the workload flag --clients followed
// from). Where the machine's memory is unknown (not Linux) it checks
// nothing.
func CheckMemory(cfg Config, w workload.Workload, clients string) error {
	return checkMemory(cfg, w, clients, machineMemory())
}

func checkMemory(cfg Config, w workload.Workload, clients string, total float64) error {
	if total <= 0 {
		return nil
	}
	per, flags := float64(clientBase), ""
	if mu, ok := w.(workload.MemoryUser); ok {
		b, f := mu.ClientMemory()
		per, flags = per+b, f
	}
	need := float64(cfg.Clients) * per
	if need <= total {
		return nil
	}
	what, them := clients, "it"
	if flags != "" {
		what, them = what+" x "+flags, "them"
	}
	return fmt.Errorf("%s needs about %s of memory, this machine has %s: lower %s", what, bytesText(need), bytesText(total), them)
}

// machineMemory is the machine's memory in bytes from /proc/meminfo, 0
// when unknown.
func machineMemory() float64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}

// bytesText is n bytes in the largest unit that keeps it at least 1.
func bytesText(n float64) string {
	units := []string{"bytes", "KB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if n < 10 && i > 0 {
		return fmt.Sprintf("%.1f %s", n, units[i])
	}
	return fmt.Sprintf("%.0f %s", n, units[i])
}
