package job

import "testing"

// TestAdminURLKeepsRequireAuth: the admin console of a pooler given by URL
// keeps the URL's require_auth (a user's opt-in to SCRAM only), and only
// that of its parameters.
func TestAdminURLKeepsRequireAuth(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@127.0.0.1:6432/db?sslmode=disable&require_auth=scram-sha-256": "postgres://u:p@127.0.0.1:6432/pgbouncer?require_auth=scram-sha-256",
		"postgres://u:p@127.0.0.1:6432/db?default_query_exec_mode=cache_describe":     "postgres://u:p@127.0.0.1:6432/pgbouncer",
	} {
		if got := adminURL(in); got != want {
			t.Errorf("adminURL(%s) = %s, want %s", in, got, want)
		}
	}
}
