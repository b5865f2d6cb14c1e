package target_test

import (
	"context"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/target"
)

// TestOpenMalformedURLHidesPassword checks the error of a URL pgx cannot
// parse: it names the URL, with the password masked. Nothing is contacted.
func TestOpenMalformedURLHidesPassword(t *testing.T) {
	for _, spec := range []string{
		"postgres://u:s3cretpw@h:notaport/db",
		"postgresql://u:s3cretpw@h/db?connect_timeout=abc",
	} {
		_, err := target.Open(context.Background(), spec)
		if err == nil {
			t.Fatalf("Open(%q) succeeded, want an error", spec)
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cretpw") {
			t.Errorf("Open(%q) error leaks the password: %s", spec, msg)
		}
		if !strings.Contains(msg, "malformed database URL") || !strings.Contains(msg, "xxxxx") {
			t.Errorf("Open(%q) error = %q, want it to say malformed database URL and show the masked URL", spec, msg)
		}
	}
}
