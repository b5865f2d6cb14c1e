package cli

import (
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/exitcode"
	"github.com/txnbench/txnbench/internal/testutil/plain"
)

// TestRedactKeepsMessagesReadable: masking hides a password only where it
// stands as one (a URL's user-info password, a password= value), never
// other text that happens to equal it.
func TestRedactKeepsMessagesReadable(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		msg, want string
	}{
		{
			name: "postgres:postgres",
			args: []string{"--db", "postgres://postgres:postgres@127.0.0.1:1/postgres"},
			msg:  "cannot reach postgres://postgres:postgres@127.0.0.1:1/postgres: failed to connect to `user=postgres database=postgres`",
			want: "cannot reach postgres://postgres:xxxxx@127.0.0.1:1/postgres: failed to connect to `user=postgres database=postgres`",
		},
		{
			name: "one-letter password",
			args: []string{"--db=postgres://u:e@127.0.0.1:1/db"},
			msg:  "cannot reach postgres://u:e@127.0.0.1:1/db: connection refused; is the server running?",
			want: "cannot reach postgres://u:xxxxx@127.0.0.1:1/db: connection refused; is the server running?",
		},
		{
			name: "URL that does not parse: a password with spaces",
			args: []string{"--db", "postgres://u:my secret@h/db"},
			msg:  "malformed database URL postgres://u:my secret@h/db: unexpected spaces found in password",
			want: "malformed database URL postgres://u:xxxxx@h/db: unexpected spaces found in password",
		},
		{
			name: "the password quoted in a connection string",
			args: []string{"--db", "postgres://u:my secret@h/db"},
			msg:  "host=h user=u password='my secret' dbname=db",
			want: "host=h user=u password=xxxxx dbname=db",
		},
		{
			name: "the password's text elsewhere is left alone",
			args: []string{"--db", "postgres://bench:secret@h/db"},
			msg:  "the secret table is missing; postgres://bench:secret@h/db",
			want: "the secret table is missing; postgres://bench:xxxxx@h/db",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &app{}
			a.collectSecrets(tc.args)
			if got := a.redact(tc.msg); got != tc.want {
				t.Errorf("redact(%q)\n got %q\nwant %q", tc.msg, got, tc.want)
			}
		})
	}
}

// TestUnreachableServerMessageReadable: the error for a common login
// (postgres:postgres) masks the password and nothing else.
func TestUnreachableServerMessageReadable(t *testing.T) {
	code, _, stderr := runMain("run", "train-events", "--db", "postgres://postgres:postgres@127.0.0.1:1/postgres?sslmode=disable", "--iterations", "1")
	if code != exitcode.Failure {
		t.Fatalf("exit %d, want %d: %s", code, exitcode.Failure, stderr)
	}
	plain.Contains(t, "stderr", stderr, "cannot reach postgres://postgres:xxxxx@127.0.0.1:1/postgres?sslmode=disable", "user=postgres database=postgres")
	if strings.Count(stderr, "xxxxx") != 1 {
		t.Errorf("stderr masks more than the password: %s", stderr)
	}
}
