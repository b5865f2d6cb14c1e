package job

import (
	"path/filepath"
	"testing"
	"time"
)

// TestClientURL: --connect-timeout reaches the clients' URL in whole
// seconds (rounded up), waiting forever is connect_timeout=0, a URL's own
// value wins, and the default leaves the URL alone. (Only postgres:// URLs
// get one: see TestConnectTimeoutOnlyOnServerURLs.)
func TestClientURL(t *testing.T) {
	const u = "postgres://u:pw@127.0.0.1:5432/db?sslmode=disable"
	for _, c := range []struct {
		timeout   time.Duration
		url, want string
	}{
		{0, u, u},
		{10 * time.Second, u, u + "&connect_timeout=10"},
		{1500 * time.Millisecond, u, u + "&connect_timeout=2"},
		{NoConnectTimeout, u, u + "&connect_timeout=0"},
		{30 * time.Second, u + "&connect_timeout=3", u + "&connect_timeout=3"},
	} {
		if got := (Spec{ConnectTimeout: c.timeout}).clientURL(c.url); got != c.want {
			t.Errorf("clientURL(%s) with %v = %s, want %s", c.url, c.timeout, got, c.want)
		}
	}
}

// TestConnectTimeoutOnlyOnServerURLs: --connect-timeout is a parameter
// of postgres:// URLs; Open leaves a SQLite file's spec as it is (SQLite
// would take connect_timeout=0 for part of the file name).
func TestConnectTimeoutOnlyOnServerURLs(t *testing.T) {
	path := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	db := openDB(t, Spec{DB: dbSpec(t, path), ConnectTimeout: NoConnectTimeout}, 1)
	if db.conn.String() != path {
		t.Errorf("the clients connect to %s, want %s", db.conn, path)
	}
}
