package target

import "testing"

// TestAdminURLKeepsAuthAndTLS: the admin console of a pooler given by URL
// keeps the URL's require_auth (a user's opt-in to SCRAM only) and its TLS
// settings (the console is verified as the pooler is: without them pgx's
// default sslmode=prefer would verify nothing), and only those of its
// parameters; and its address and user when they are query parameters
// (a Unix socket's directory: without them the console went to the
// default socket, another PgBouncer or none).
func TestAdminURLKeepsAuthAndTLS(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@127.0.0.1:6432/db?sslmode=disable&require_auth=scram-sha-256":    "postgres://u:p@127.0.0.1:6432/pgbouncer?require_auth=scram-sha-256&sslmode=disable",
		"postgres://u:p@127.0.0.1:6432/db?sslmode=verify-full&sslrootcert=/d/ca.crt&x=1": "postgres://u:p@127.0.0.1:6432/pgbouncer?sslmode=verify-full&sslrootcert=%2Fd%2Fca.crt",
		"postgres://u:p@127.0.0.1:6432/db?default_query_exec_mode=cache_describe":        "postgres://u:p@127.0.0.1:6432/pgbouncer",
		"postgres:///db?host=/run/pgb&port=6433&user=u&application_name=x&dbname=other":  "postgres:///pgbouncer?host=%2Frun%2Fpgb&port=6433&user=u",
	} {
		if got := adminURL(in); got != want {
			t.Errorf("adminURL(%s) = %s, want %s", in, got, want)
		}
	}
}
