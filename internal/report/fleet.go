package report

import (
	"fmt"
	"io"

	"github.com/txnbench/txnbench/internal/result"
)

// fleetLines writes, under the pooler line of a fleet, the proxy's line
// and a line per member (fleetFields).
func fleetLines(w io.Writer, p *result.Pooler) {
	for _, f := range fleetFields(p) {
		if f.Name == "proxy" {
			fmt.Fprintln(w, fleetIndent+f.Value)
		} else {
			fmt.Fprintf(w, "%s%-8s %s\n", fleetIndent, f.Name, f.Value)
		}
	}
}

// fleetIndent lines a fleet's lines up under the pooler line's text.
const fleetIndent = "           "

// fleetFields describes a pooler fleet: the proxy ("proxy": its name, how
// it balances and checks), then each member by the proxy's name for it:
// what the proxy saw of it, then its own counters. None without a fleet.
func fleetFields(p *result.Pooler) []field {
	if p.Proxy == nil && len(p.Members) == 0 {
		return nil
	}
	var out []field
	seen := map[string]*result.ProxyServer{}
	var names []string
	for _, m := range p.Members {
		names = append(names, m.Name)
	}
	if p.Proxy != nil {
		line := p.Proxy.Name + " (" + p.Proxy.Detail + ")"
		if p.Proxy.Note != "" {
			line += "; " + p.Proxy.Note
		}
		out = append(out, field{"proxy", line})
		for i, s := range p.Proxy.Servers {
			seen[s.Name] = &p.Proxy.Servers[i]
			if len(p.Members) == 0 {
				names = append(names, s.Name)
			}
		}
	}
	members := map[string]result.PoolerMember{}
	for _, m := range p.Members {
		members[m.Name] = m
	}
	for _, name := range names {
		line, sep := "", ""
		if s := seen[name]; s != nil {
			line = fmt.Sprintf("%s, %s sessions, %s connect errors (%s redispatched), %s failed checks, %s downs",
				s.Status, thousands(s.Sessions), thousands(s.ConnectErrors), thousands(s.Redispatched), thousands(s.FailedChecks), thousands(s.Downs))
			sep = "; "
		}
		if m, ok := members[name]; ok {
			if m.Stats != nil {
				line += fmt.Sprintf("%s%s transactions, %s queries", sep, thousands(m.Stats["total_xact_count"]), thousands(m.Stats["total_query_count"]))
			}
			if m.Note != "" {
				line += "; " + m.Note
			}
		}
		out = append(out, field{name, line})
	}
	return out
}
