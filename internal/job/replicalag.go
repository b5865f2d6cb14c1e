package job

import (
	"context"
	"net/url"
	"sync"
	"time"

	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/target"
)

// lagEvery is how often the standbys' lag is read on the primary.
const lagEvery = 250 * time.Millisecond

// lagQuery reads each standby's state and lag on the primary: the
// server's own write, flush and replay lag (the time from a commit's WAL
// being written locally to the standby's acknowledgement) and the bytes
// of WAL the standby has not yet replayed.
const lagQuery = `SELECT application_name, state,
  coalesce(extract(epoch FROM write_lag) * 1000, 0)::float8,
  coalesce(extract(epoch FROM flush_lag) * 1000, 0)::float8,
  coalesce(extract(epoch FROM replay_lag) * 1000, 0)::float8,
  coalesce(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn), 0)::bigint
FROM pg_stat_replication ORDER BY application_name`

// lagWatch samples the standbys' lag over a run (watchLag).
type lagWatch struct {
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	lags []result.StandbyLag
}

// watchLag samples the lag of the standbys of db, if it has any, until
// finish: on the current primary, through the set's URL (a failover
// moves it), in the template1 database so that the run database's
// counters hold none of its transactions. nil without standbys.
func watchLag(db *Database) *lagWatch {
	if db.replicas == nil {
		return nil
	}
	u, err := url.Parse(target.WithParam(db.replicas.URL(), "application_name", "txnbench-lag"))
	if err != nil {
		return nil
	}
	u.Path = "/template1"
	w := &lagWatch{stop: make(chan struct{}), done: make(chan struct{})}
	go w.loop(db.srv.Admin.WithURL(u.String()))
	return w
}

func (w *lagWatch) loop(primary target.Spec) {
	defer close(w.done)
	tk := time.NewTicker(lagEvery)
	defer tk.Stop()
	var t target.Target
	var c target.Conn
	defer func() {
		if c != nil {
			c.Close(context.Background())
		}
		if t != nil {
			t.Close()
		}
	}()
	for {
		select {
		case <-w.stop:
			return
		case <-tk.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), lagEvery*4)
		if c == nil || c.Broken() {
			if c != nil {
				c.Close(ctx)
				t.Close()
				c, t = nil, nil
			}
			var err error
			if t, err = target.Open(ctx, primary); err == nil {
				if c, err = t.Connect(ctx); err != nil {
					t.Close()
					t, c = nil, nil
				}
			} else {
				t = nil
			}
		}
		if c != nil {
			w.sample(ctx, c)
		}
		cancel()
	}
}

// sample reads the lag once and keeps each standby's largest.
func (w *lagWatch) sample(ctx context.Context, c target.Conn) {
	rows, err := c.Query(ctx, lagQuery)
	if err != nil {
		return // a broken session is replaced at the next tick
	}
	defer rows.Close()
	for rows.Next() {
		var s result.StandbyLag
		var writeMS, flushMS, replayMS float64
		var behind int64
		if rows.Scan(&s.Name, &s.State, &writeMS, &flushMS, &replayMS, &behind) != nil {
			return
		}
		w.mu.Lock()
		l := w.lag(s.Name)
		l.State, l.Samples = s.State, l.Samples+1
		l.MaxWriteLagMS = max(l.MaxWriteLagMS, writeMS)
		l.MaxFlushLagMS = max(l.MaxFlushLagMS, flushMS)
		l.MaxReplayLagMS = max(l.MaxReplayLagMS, replayMS)
		l.MaxBehindBytes = max(l.MaxBehindBytes, behind)
		w.mu.Unlock()
	}
}

// lag is the standby's entry, made on its first sample; w.mu is held.
func (w *lagWatch) lag(name string) *result.StandbyLag {
	for i := range w.lags {
		if w.lags[i].Name == name {
			return &w.lags[i]
		}
	}
	w.lags = append(w.lags, result.StandbyLag{Name: name})
	return &w.lags[len(w.lags)-1]
}

// finish stops the sampling and returns what it saw: nil for a nil
// watch.
func (w *lagWatch) finish() []result.StandbyLag {
	if w == nil {
		return nil
	}
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.lags
}

// watchReplicas samples the standbys' lag over the run, with telemetry
// on; its stop keeps what it saw for the result.
func (rn *running) watchReplicas() error {
	if rn.s.Telemetry.Off {
		return nil
	}
	if w := watchLag(rn.db); w != nil {
		rn.stops.push(func() { rn.lags = w.finish() })
	}
	return nil
}
