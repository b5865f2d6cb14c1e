package diff

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// setting is one fixed setting of a run, as compared.
type setting struct{ key, value string }

// fixedSettings are what must be equal for two runs to be compared:
// workload and its settings, the runner's load (clients, duration or
// iterations, rate, ramp, warm-up, latency limit, tries), the connector
// (conn, pool, via, pooler), the database kind (result.Config's
// DatabaseKind, not its URL: throwaway servers get a new port each run), server settings given with --pg-conf,
// the server's dialect and major version, and txnbench's version. The seed
// is not fixed: a baseline is meant to hold across seeds. The invariants
// checked (settingDifferences) and, for suites, the scenario names
// (Compare) must be the same too.
func fixedSettings(r *result.Result) []setting {
	c := r.Config
	s := []setting{
		{"workload", r.Workload},
	}
	keys := make([]string, 0, len(r.Settings))
	for k := range r.Settings {
		if k != "data_seed" { // the seed existing data was made with: a baseline holds across seeds
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		b, _ := json.Marshal(r.Settings[k])
		s = append(s, setting{k, strings.Trim(string(b), `"`)})
	}
	pool := ""
	if c.Pool != nil {
		pool = fmt.Sprintf("max %d min %d lifetime %s health-check %s", c.Pool.Max, c.Pool.Min, c.Pool.Lifetime, c.Pool.HealthCheck)
	}
	pooler := ""
	if r.Pooler != nil {
		pooler = r.Pooler.Name
		if r.Pooler.Detail != "" {
			pooler += " (" + r.Pooler.Detail + ")"
		}
	}
	s = append(s,
		setting{"clients", strconv.Itoa(c.Clients)},
		setting{"duration", c.Duration},
		setting{"iterations", strconv.FormatInt(c.Iterations, 10)},
		setting{"rate", strconv.FormatFloat(c.Rate, 'g', -1, 64)},
		setting{"ramp", c.Ramp},
		setting{"warmup", c.Warmup},
		setting{"latency-limit", c.LatencyLimit},
		setting{"max-tries", strconv.Itoa(c.MaxTries)},
		setting{"isolation", c.Isolation},
		setting{"conn", c.Conn},
		setting{"pool", pool},
		setting{"via", c.Via},
		setting{"pooler", pooler},
		setting{"database", c.DatabaseKind()},
		setting{"pg-conf", strings.Join(c.PGConf, " ")},
		setting{"server", r.Server.Dialect + " " + majorVersion(r.Server.Dialect, r.Server.Version)},
		setting{"txnbench", r.Tool.Version},
	)
	return s
}

// majorVersion is the part of a server version that changes its
// behaviour: "15" of PostgreSQL 15.4 (from 10 on), "9.6" of 9.6.24, the
// first two parts otherwise (SQLite 3.45, CockroachDB 23.1).
func majorVersion(dialect, v string) string {
	v = strings.TrimPrefix(v, "v")
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == '.' || r == ' ' || r == '-' })
	if len(parts) == 0 {
		return v
	}
	if dialect == "PostgreSQL" {
		if n, err := strconv.Atoi(parts[0]); err == nil && n >= 10 {
			return parts[0]
		}
	}
	if len(parts) >= 2 {
		return parts[0] + "." + parts[1]
	}
	return parts[0]
}

// settingDifferences lists the fixed settings in which b and n differ, as
// "clients 8 vs 16".
func settingDifferences(b, n *result.Result) []string {
	bs, ns := fixedSettings(b), fixedSettings(n)
	bm := map[string]string{}
	for _, s := range bs {
		bm[s.key] = s.value
	}
	nm := map[string]string{}
	for _, s := range ns {
		nm[s.key] = s.value
	}
	var out []string
	show := func(v string) string {
		if v == "" {
			return "(none)"
		}
		return v
	}
	seen := map[string]bool{}
	for _, s := range append(bs, ns...) {
		if seen[s.key] {
			continue
		}
		seen[s.key] = true
		if bm[s.key] != nm[s.key] {
			out = append(out, fmt.Sprintf("%s %s vs %s", s.key, show(bm[s.key]), show(nm[s.key])))
		}
	}
	// The correctness assertions: the invariants each side checked, when
	// both checked some (a check that verified nothing is noted apart).
	if bi, ni := checkedInvariants(b), checkedInvariants(n); bi != "" && ni != "" && bi != ni {
		out = append(out, fmt.Sprintf("invariants checked %s vs %s", bi, ni))
	}
	return out
}

// checkedInvariants names the invariants r's check verified, sorted and
// joined ("" when none).
func checkedInvariants(r *result.Result) string {
	var names []string
	for _, it := range r.Check().Items {
		names = append(names, it.Name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// machineNote says when the two runs ran on different machines: not a
// fixed setting (a baseline may move to a new CI runner), but the numbers
// then say more about the machines than about the change.
func machineNote(b, n *result.Result) string {
	bm, nm := b.Machine, n.Machine
	if bm.Hostname == nm.Hostname && bm.CPUs == nm.CPUs && bm.Arch == nm.Arch {
		return ""
	}
	return fmt.Sprintf("measured on different machines (%s, %d CPUs, %s vs %s, %d CPUs, %s): differences may be the machines'",
		bm.Hostname, bm.CPUs, bm.Arch, nm.Hostname, nm.CPUs, nm.Arch)
}
