package mysql_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/target"
	"github.com/txnbench/txnbench/internal/testutil"
)

// TestTLSCARefusesImpostor: a client whose URL has tls-ca, as every URL of
// temp-mariadb has, meets a fake MySQL server that offers
// caching_sha2_password and hands out its own RSA key, once offering TLS
// with a certificate it signed itself and once no TLS at all. The client
// refuses both before it sends its login: the impostor learns no user and
// no password, and the failure is of class auth, one line naming the
// server, what it did and the port hint. The plant: without tls-ca the
// same impostor reads the password (the hole of issue 37).
func TestTLSCARefusesImpostor(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	caFile := testutil.CAFile(t)
	ln := testutil.Listen(t)
	im, err := testutil.ServeMySQLImpostor(ln)
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	plain := fmt.Sprintf("mysql://root:s3cret-pw@%s/txnbench", addr)
	for _, did := range []string{
		"showed a certificate its tls-ca's CA did not sign, which tls-ca refuses",
		"does not offer TLS, which tls-ca requires",
	} {
		_, err := target.OpenURL(ctx, plain+"?tls-ca="+url.QueryEscape(caFile))
		if err == nil {
			t.Fatal("connected to the impostor")
		}
		if cl := target.Classify(err); cl != errclass.Auth {
			t.Errorf("class %s, want auth (%v)", cl, err)
		}
		want := "another local process may hold the port: the server at " + addr + " " + did
		if msg := err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") || strings.Contains(msg, "s3cret-pw") {
			t.Errorf("error %q, want one line containing %q, no password", msg, want)
		}
	}
	if req, hs := im.SSLRequests(); req != 1 || hs != 0 || im.Startups() != 0 || len(im.Sent()) != 0 || len(im.Leaked()) != 0 {
		t.Errorf("the impostor saw %d TLS requests, %d handshakes, %d logins, %d messages, passwords %q: want 1 request and nothing else",
			req, hs, im.Startups(), len(im.Sent()), im.Leaked())
	}

	// The plant: without tls-ca the client logs in to whatever answers
	// and hands it the password, encrypted with the impostor's own key.
	for range 2 {
		_, _ = target.OpenURL(ctx, plain)
	}
	if leaked := im.Leaked(); len(leaked) == 0 || leaked[0] != "s3cret-pw" {
		t.Errorf("without tls-ca the impostor read %q, want the password (the plant)", leaked)
	}
}

// TestTLSCABadInput: tls-ca without a file, with tls= beside it, or
// naming something that is not a CA certificate is a malformed URL that
// names the parameter.
func TestTLSCABadInput(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"tls-ca=", "tls-ca=" + junk + "&tls=true", "tls-ca=" + junk, "tls-ca=" + filepath.Join(dir, "missing"), "tls-ca=" + dir} {
		_, err := target.OpenURL(context.Background(), "mysql://root:pw@127.0.0.1:1/db?"+q)
		if err == nil || !strings.Contains(err.Error(), "tls-ca") || !strings.Contains(err.Error(), target.ErrMalformedURL.Error()) {
			t.Errorf("%s: %v, want a malformed URL naming tls-ca", q, err)
		}
	}
}
