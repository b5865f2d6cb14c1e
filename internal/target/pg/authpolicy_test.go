package pg_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestRequireSCRAMRefusesImpostor: a client whose URL requires SCRAM, as
// every throwaway service's does, answers a server asking for a cleartext
// password, an MD5 hash, or letting it in unasked by hanging up: the
// impostor receives nothing, and the failure is of class auth with one line
// naming the server and what it asked for. Without require_auth the same
// impostor gets the password (the hole the parameter closes).
func TestRequireSCRAMRefusesImpostor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, c := range []struct {
		auth  int
		asked string
	}{
		{testutil.AuthCleartext, "asked for a cleartext password"},
		{testutil.AuthMD5, "asked for an MD5 password hash"},
		{testutil.AuthOk, "asked for nothing"},
	} {
		ln := testutil.Listen(t)
		im := testutil.ServeImpostor(ln, []int{c.auth})
		addr := ln.Addr().String()
		url := fmt.Sprintf("postgres://postgres:s3cret-pw@%s/postgres?sslmode=disable&require_auth=scram-sha-256", addr)
		_, err := target.OpenURL(ctx, url)
		if err == nil {
			t.Fatalf("auth %d: connected to the impostor", c.auth)
		}
		if cl := target.Classify(err); cl != errclass.Auth {
			t.Errorf("auth %d: class %s, want auth (%v)", c.auth, cl, err)
		}
		want := "the server at " + addr + " " + c.asked
		if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") || strings.Contains(msg, "s3cret-pw") {
			t.Errorf("auth %d: error %q, want one line containing %q, no password", c.auth, msg, want)
		}
		if im.Startups() != 1 || len(im.Sent()) != 0 {
			t.Errorf("auth %d: impostor saw %d startups and then %+v, want 1 and nothing", c.auth, im.Startups(), im.Sent())
		}

		// The plant: without the parameter the client hands over the
		// password (or its hash, or a query).
		_, _ = target.OpenURL(ctx, strings.TrimSuffix(url, "&require_auth=scram-sha-256"))
		if sent := im.Sent(); len(sent) != 1 || c.auth == testutil.AuthCleartext && !strings.Contains(string(sent[0].Body), "s3cret-pw") {
			t.Errorf("auth %d without require_auth: impostor got %+v, want the client's next message", c.auth, sent)
		}
		ln.Close()
	}
}

// TestTLSRefusingImpostor: a client whose URL requires verified TLS, as
// every --tls run's does, meets a fake server that answers its SSLRequest
// with "no TLS". The failure is of class auth, one line naming the server,
// that it refused TLS and the port hint (before, class other and pgx's
// "server refused TLS connection" alone); the impostor receives no startup.
func TestTLSRefusingImpostor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	caFile := testutil.CAFile(t)
	ln := testutil.Listen(t)
	im := testutil.ServeImpostor(ln, []int{testutil.AuthCleartext})
	addr := ln.Addr().String()
	_, err := target.OpenURL(ctx, fmt.Sprintf("postgres://postgres:s3cret-pw@%s/postgres?sslmode=verify-full&sslrootcert=%s&require_auth=scram-sha-256", addr, caFile))
	if err == nil {
		t.Fatal("connected to the impostor")
	}
	if cl := target.Classify(err); cl != errclass.Auth {
		t.Errorf("class %s, want auth (%v)", cl, err)
	}
	want := "another local process may hold the port: the server at " + addr + " refused TLS, which the URL's sslmode requires"
	if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
		t.Errorf("error %q, want one line containing %q", msg, want)
	}
	if im.Startups() != 0 {
		t.Errorf("the impostor saw %d startups, want none", im.Startups())
	}
}
