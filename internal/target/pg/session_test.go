package pg_test

import (
	"context"
	"net/url"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/target/pg"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestRefusedTLSAskedOnce: under sslmode=prefer (the default) against a
// server without TLS, pgx asks for TLS on one socket and, refused, opens
// another for the session. Only the target's first session pays that:
// the later ones start without TLS, so opening the target and three
// sessions cost five TCP connections (the refused one, the probe, three
// sessions), not eight.
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
	if n := accepted.Load(); n != 5 {
		t.Errorf("%d TCP connections for a target and three sessions, want 5 (one TLS request refused, then none)", n)
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
