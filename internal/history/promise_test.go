package history

import "testing"

// TestPromise holds the table of docs/anomalies.md: what each engine's
// named level is checked as.
func TestPromise(t *testing.T) {
	for _, c := range []struct {
		engine, named string
		want          Level
	}{
		{"PostgreSQL", "read-committed", ReadCommitted},
		{"PostgreSQL", "repeatable-read", SnapshotIsolation},
		{"postgresql", "serializable", Serializable},
		{"PostgreSQL", "read-uncommitted", ReadCommitted},
		{"MariaDB", "read-uncommitted", ReadUncommitted},
		{"MariaDB", "repeatable-read", ReadCommitted},
		{"mysql", "repeatable-read", ReadCommitted},
		{"MariaDB", "serializable", Serializable},
		{"SQLite", "serializable", Serializable},
		{"", "snapshot-isolation", SnapshotIsolation},
	} {
		if got, err := Promise(c.engine, c.named); err != nil || got != c.want {
			t.Errorf("Promise(%s, %s) = %s, %v; want %s", c.engine, c.named, got, err, c.want)
		}
	}
	for _, bad := range [][2]string{{"Oracle", "serializable"}, {"PostgreSQL", "snapshot-isolation"}, {"MariaDB", "bogus"}} {
		if l, err := Promise(bad[0], bad[1]); err == nil {
			t.Errorf("Promise(%s, %s) = %s, want an error", bad[0], bad[1], l)
		}
	}
	// MariaDB's repeatable read lets lost updates through; PostgreSQL's
	// does not.
	mr, _ := Promise("MariaDB", "repeatable-read")
	pr, _ := Promise("PostgreSQL", "repeatable-read")
	if mr.Proscribes(LostUpdate) || !pr.Proscribes(LostUpdate) || pr.Proscribes(G2Item) {
		t.Errorf("repeatable read: MariaDB proscribes lost-update %v, PostgreSQL %v (G2-item %v)", mr.Proscribes(LostUpdate), pr.Proscribes(LostUpdate), pr.Proscribes(G2Item))
	}
	if got := PromiseText("mariadb", "repeatable-read", mr); got != "MariaDB's repeatable-read (checked as read-committed)" {
		t.Errorf("PromiseText: %q", got)
	}
}
