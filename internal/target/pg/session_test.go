package pg_test

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/target/pg"
	"github.com/txnbench/txnbench/internal/testutil"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestRefusedTLSAskedOnce: under sslmode=prefer (the default) against a
// server without TLS, pgx asks for TLS on one socket and, refused, opens
// another for the session. Only the target's first session pays that:
// the later ones start without TLS. And the probe's session is the first
// one Connect hands out. So opening the target and three sessions cost
// four TCP connections (the refused one, the probe that is the first
// session, two more), not eight.
func TestRefusedTLSAskedOnce(t *testing.T) {
	ctx := context.Background()
	u, err := url.Parse(testutil.SharedPostgres(t))
	if err != nil {
		t.Fatal(err)
	}
	relay, accepted := testutil.CountingRelay(t, u.Host)
	q := u.Query()
	q.Del("sslmode") // prefer
	u.RawQuery, u.Host = q.Encode(), relay
	tg, err := target.OpenURL(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	for i := 0; i < 3; i++ {
		c, err := tg.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Fatal(err)
		}
		c.Close(ctx)
	}
	if n := accepted.Load(); n != 4 {
		t.Errorf("%d TCP connections for a target and three sessions, want 4 (one TLS request refused, then none; the probe's session the first)", n)
	}
}

// TestDescriptionCacheOnlyWhenRead: a session keeps a cache of statement
// descriptions (a map pgx sizes for 512) only in the exec mode that reads
// it, or when the URL asks for one.
func TestDescriptionCacheOnlyWhenRead(t *testing.T) {
	ctx := context.Background()
	base := testutil.SharedPostgres(t)
	for _, c := range []struct {
		query string
		want  int
	}{
		{"", 0},
		{"default_query_exec_mode=cache_describe", 512},
		{"description_cache_capacity=7", 7},
	} {
		u := base
		if c.query != "" {
			u += "&" + c.query
		}
		tg, err := target.OpenURL(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		s, err := tg.Connect(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := pg.DescriptionCache(s); got != c.want {
			t.Errorf("%q: description cache of %d, want %d", c.query, got, c.want)
		}
		s.Close(ctx)
		tg.Close()
	}
}

// TestProbeSessionGoesOnOrEnds: the session Open read the server's version
// on is the first Connect's, or, when none comes within a second, closed:
// no idle session of txnbench's stays on the server. One the server ended
// meanwhile is not handed out. Isolate closes it too, since it began
// without the level, and the first session then starts at the level.
func TestProbeSessionGoesOnOrEnds(t *testing.T) {
	ctx := context.Background()
	base := testutil.SharedPostgres(t)
	_, watch, done := testutil.Conn(t, base)
	defer done()
	sessions := func(app string) int {
		rows, err := watch.Query(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1", app)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var n int
		for rows.Next() {
			if err := rows.Scan(&n); err != nil {
				t.Fatal(err)
			}
		}
		return n
	}
	open := func(app string) target.Target {
		tg, err := target.OpenURL(ctx, base+"&application_name="+app)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		return tg
	}

	open("probe-unused")
	for deadline := time.Now().Add(time.Second + plain.Slack(5*time.Second)); sessions("probe-unused") != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the probe's session is still open after %s with no Connect", time.Second+plain.Slack(5*time.Second))
		}
	}

	// A probe's session the server ended is not handed out: the first
	// Connect opens another that works.
	ended := open("probe-ended")
	if _, err := watch.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'probe-ended'"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(plain.Slack(5 * time.Second)); sessions("probe-ended") != 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the probe's backend outlived pg_terminate_backend")
		}
	}
	if c, err := ended.Connect(ctx); err != nil {
		t.Fatal(err)
	} else {
		if _, err := c.Exec(ctx, "SELECT 1"); err != nil {
			t.Errorf("the first session after the server ended the probe's: %v", err)
		}
		c.Close(ctx)
	}

	tg := open("probe-isolated")
	if err := target.Isolate(tg, target.Serializable, true); err != nil {
		t.Fatal(err)
	}
	c, err := tg.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SELECT current_setting('default_transaction_isolation')")
	if err != nil {
		t.Fatal(err)
	}
	var level string
	for rows.Next() {
		if err := rows.Scan(&level); err != nil {
			t.Fatal(err)
		}
	}
	rows.Close()
	if level != "serializable" {
		t.Errorf("the first session after Isolate starts at %q, want serializable", level)
	}
	// The closed probe's backend may show until it has read the Terminate.
	for deadline := time.Now().Add(plain.Slack(5 * time.Second)); sessions("probe-isolated") != 1; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions of a target after Isolate and one Connect, want 1 (the probe's closed)", sessions("probe-isolated"))
		}
	}
}
