package telemetry

import (
	"sort"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/result"
)

// waitsQuery samples the run database's client sessions, other than the
// telemetry session, as one row of two text values. The first counts the
// sessions in a transaction: "EVENT=N,..." where EVENT is "type:event"
// for an active session that waits, "CPU" for one that is active and not
// waiting, and "Client:ClientRead" for one idle in a transaction (waiting
// for its client's next statement while it holds the transaction open,
// as PostgreSQL reports it; pg_stat_activity may show it without its wait
// event for a moment). A session idle between transactions is not
// counted: it holds nothing and costs the server nothing. The second
// lists every session by state, for the wait history: "STATE=PID PID,..."
// where STATE is EVENT for an active session; an idle one waits for its
// client: "Client:ClientRead (idle in transaction)" or "Client:ClientRead
// (idle)"; else the state itself. An EVENT may repeat in the first value
// (idle in transaction, aborted or not); the counts add up.
// Text values keep the sampler from allocating per session.
const waitsQuery = ownTag + `SELECT coalesce(string_agg(c || '=' || n, ',') FILTER (WHERE c IS NOT NULL), ''), coalesce(string_agg(e || '=' || pids, ','), '') FROM (
  SELECT e, CASE WHEN active THEN e WHEN e LIKE 'Client:ClientRead (idle in transaction%' THEN 'Client:ClientRead' END AS c,
    count(*) AS n, string_agg(pid::text, ' ') AS pids
  FROM (SELECT pid, state IS NOT DISTINCT FROM 'active' AS active,
      CASE WHEN state LIKE 'idle%' THEN 'Client:ClientRead (' || state || ')' WHEN state IS DISTINCT FROM 'active' THEN coalesce(state, 'unknown')
        WHEN wait_event_type IS NULL THEN 'CPU' ELSE wait_event_type || ':' || coalesce(wait_event, '') END AS e
    FROM pg_stat_activity
    WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()) AS a
  GROUP BY e, active) AS s`

// maxBackends bounds a count of sessions in one sample (PostgreSQL's
// max_connections is at most 262143); larger numbers are not counts.
const maxBackends = 1 << 18

// waitCounter accumulates wait samples. Event names are few and repeat,
// so after the first samples adding one allocates nothing.
type waitCounter struct {
	samples, active int64
	lockSamples     int64
	maxLock         int
	events          map[string]int64 // "type:event" or CPU, over the window
	interval        map[string]int64 // class, since the last interval
	classOf         map[string]string
}

func newWaitCounter() *waitCounter {
	return &waitCounter{events: map[string]int64{}, interval: map[string]int64{}, classOf: map[string]string{}}
}

// nextPair cuts the first part off list, a comma-separated list of
// name=value parts (the name runs to the part's last '='), and returns its
// name and value and the rest of list; ok is false for a part without a
// name. It allocates nothing.
func nextPair(list string) (name, value, rest string, ok bool) {
	part, rest, _ := strings.Cut(list, ",")
	eq := strings.LastIndexByte(part, '=')
	if eq <= 0 {
		return "", "", rest, false
	}
	return part[:eq], part[eq+1:], rest, true
}

// add counts one sample, as waitsQuery returns it. Malformed parts are
// skipped.
func (w *waitCounter) add(agg string) {
	w.samples++
	locks := 0
	for agg != "" {
		ev, count, rest, ok := nextPair(agg)
		agg = rest
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(count, 10, 64)
		if err != nil || n < 0 || n > maxBackends {
			continue
		}
		class, ok := w.classOf[ev]
		if !ok {
			ev = strings.Clone(ev) // keep the key, not the whole sample
			class = ev
			if i := strings.IndexByte(ev, ':'); i >= 0 {
				class = ev[:i]
			}
			w.classOf[ev] = class
		}
		w.events[ev] += n
		w.interval[class] += n
		w.active += n
		if class == "Lock" {
			locks += int(n)
		}
	}
	w.lockSamples += int64(locks)
	w.maxLock = max(w.maxLock, locks)
}

// takeInterval returns the class counts since the last call (nil when
// none) and starts anew.
func (w *waitCounter) takeInterval() map[string]int64 {
	if len(w.interval) == 0 {
		return nil
	}
	out := w.interval
	w.interval = make(map[string]int64, len(out))
	return out
}

// topEvents is how many events the summary keeps.
const topEvents = 10

// summary is the window's Waits.
func (w *waitCounter) summary(every float64) *result.Waits {
	s := &result.Waits{SampleEveryMS: every, Samples: w.samples, ActiveSamples: w.active,
		LockWaitSamples: w.lockSamples, MaxLockWaiters: w.maxLock,
		Classes: []result.WaitShare{}, Events: []result.WaitShare{}}
	classes := map[string]int64{}
	for ev, n := range w.events {
		classes[w.classOf[ev]] += n
	}
	s.Classes = shares(classes, w.active, 0)
	s.Events = shares(w.events, w.active, topEvents)
	return s
}

// shares orders counts largest first (then by name) as shares of total,
// keeping the first limit (0: all).
func shares(counts map[string]int64, total int64, limit int) []result.WaitShare {
	out := make([]result.WaitShare, 0, len(counts))
	for k, n := range counts {
		if n == 0 {
			continue
		}
		ws := result.WaitShare{Name: k, Samples: n}
		if total > 0 {
			ws.Share = float64(n) / float64(total)
		}
		out = append(out, ws)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Samples != out[j].Samples {
			return out[i].Samples > out[j].Samples
		}
		return out[i].Name < out[j].Name
	})
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
