package redact_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/txnbench/txnbench/internal/redact"
)

type maskCase struct {
	name    string
	in      string
	want    string   // exact output; "" means only secrets/keep are checked
	secrets []string // must not appear in the output
	keep    []string // must appear in the output
}

var maskCases = []maskCase{
	{name: "postgres URL with password", in: "postgres://bench:s3cretpw@db.example.com:5432/app?sslmode=disable", want: "postgres://bench:xxxxx@db.example.com:5432/app?sslmode=disable", secrets: []string{"s3cretpw"}},
	{name: "postgresql scheme", in: "postgresql://bench:hunter22@10.0.0.7/app", want: "postgresql://bench:xxxxx@10.0.0.7/app", secrets: []string{"hunter22"}},
	{name: "postgres URL without password", in: "postgres://bench@db.example.com:5432/app?sslmode=disable", want: "postgres://bench@db.example.com:5432/app?sslmode=disable"},
	{name: "postgres URL without user info", in: "postgres://db.example.com/app", want: "postgres://db.example.com/app"},
	{name: "url-escaped special characters in the password", in: "postgres://u:p%40ss%2Fw0rd%3A@h:5432/db", want: "postgres://u:xxxxx@h:5432/db", secrets: []string{"p%40ss%2Fw0rd%3A", "p@ss/w0rd:", "p%40ss"}},
	{name: "unescaped @ in the password", in: "postgres://u:p@ssw0rd@h/db", want: "postgres://u:xxxxx@h/db", secrets: []string{"p@ssw0rd", "ssw0rd"}},
	{name: "unescaped slash in the password (not a valid URL)", in: "postgres://u:pa/ssw0rd@h/db", want: "postgres://u:xxxxx@h/db", secrets: []string{"pa/ssw0rd", "ssw0rd"}},
	{name: "unescaped # in the password (not a valid URL)", in: "postgres://u:pa#ssw0rd@h/db", want: "postgres://u:xxxxx@h/db", secrets: []string{"pa#ssw0rd", "ssw0rd"}},
	{name: "empty password", in: "postgres://u:@h/db", want: "postgres://u:xxxxx@h/db", secrets: nil},
	{name: "IPv6 host", in: "postgres://u:s3cretpw@[::1]:5432/db", want: "postgres://u:xxxxx@[::1]:5432/db", secrets: []string{"s3cretpw"}},
	{name: "several hosts", in: "postgres://u:s3cretpw@h1:5432,h2:5433/db", secrets: []string{"s3cretpw"}, keep: []string{"postgres://u:", "h1:5432,h2:5433/db"}},
	{name: "password= query parameter", in: "postgres://u@h/db?sslmode=require&password=s3cretpw&application_name=x", want: "postgres://u@h/db?sslmode=require&password=xxxxx&application_name=x", secrets: []string{"s3cretpw"}},
	{name: "password in user info and in the query", in: "postgres://u:first1pw@h/db?password=second2pw", secrets: []string{"first1pw", "second2pw"}, keep: []string{"postgres://u:xxxxx@h/db", "password=xxxxx"}},
	{name: "keyword/value connection string", in: "host=h user=u password=s3cretpw dbname=app", want: "host=h user=u password=xxxxx dbname=app", secrets: []string{"s3cretpw"}},
	{name: "upper-case PASSWORD=", in: "HOST=h PASSWORD=s3cretpw", want: "HOST=h PASSWORD=xxxxx", secrets: []string{"s3cretpw"}},
	{name: "URL inside an error message", in: "failed to connect to postgres://u:s3cret@h/db: boom", want: "failed to connect to postgres://u:xxxxx@h/db: boom", secrets: []string{"s3cret"}},
	{name: "URL inside a flag", in: "--db=postgres://u:s3cretpw@h/db", want: "--db=postgres://u:xxxxx@h/db", secrets: []string{"s3cretpw"}},
	{name: "pgx parse error quoting the URL", in: "cannot parse `postgres://u:s3cretpw@h:bad/db`: invalid port", want: "cannot parse `postgres://u:xxxxx@h:bad/db`: invalid port", secrets: []string{"s3cretpw"}},
	{name: "URL followed by a second line", in: "postgres://u:s3cretpw@h/db\nsecond line", want: "postgres://u:xxxxx@h/db\nsecond line", secrets: []string{"s3cretpw"}},
	{name: "password equal to the user and database names", in: "cannot reach postgres://postgres:postgres@127.0.0.1:1/postgres: failed to connect to `user=postgres database=postgres`", want: "cannot reach postgres://postgres:xxxxx@127.0.0.1:1/postgres: failed to connect to `user=postgres database=postgres`"},
	{name: "one-letter password", in: "cannot reach postgres://u:e@127.0.0.1:1/db: connection refused", want: "cannot reach postgres://u:xxxxx@127.0.0.1:1/db: connection refused", secrets: []string{":e@"}},
	{name: "single-quoted connection-string value with doubled quotes", in: "host='h' password='it''s a secret' dbname=app", want: "host='h' password=xxxxx dbname=app", secrets: []string{"secret", "it"}},
	{name: "single-quoted connection-string value with backslash escapes", in: `password='a\'b c' user=u`, want: "password=xxxxx user=u", secrets: []string{"b c"}},
	{name: "double-quoted value", in: `password="s3cret pw" user=u`, want: "password=xxxxx user=u", secrets: []string{"s3cret", " pw"}},
	{name: "spaces around =", in: "host=h password = s3cretpw dbname=app", want: "host=h password = xxxxx dbname=app", secrets: []string{"s3cretpw"}},
	{name: "empty string", in: "", want: ""},
	{name: "sqlite path", in: "sqlite:/tmp/bench/x.db", want: "sqlite:/tmp/bench/x.db"},
	{name: "temporary sqlite", in: "sqlite:", want: "sqlite:"},
	{name: "temp-postgres", in: "temp-postgres", want: "temp-postgres"},
	{name: "plain text", in: "deadlock detected (SQLSTATE 40P01)", want: "deadlock detected (SQLSTATE 40P01)"},
	{name: "user without password in text", in: "role \"bench\" does not exist", want: "role \"bench\" does not exist"},
}

func TestURL(t *testing.T) {
	for _, tc := range maskCases {
		t.Run(tc.name, func(t *testing.T) {
			got := redact.URL(tc.in)
			if tc.want != "" || tc.in == "" {
				if got != tc.want {
					t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
				}
			}
			for _, s := range tc.secrets {
				if strings.Contains(got, s) {
					t.Errorf("URL(%q) = %q still contains the secret %q", tc.in, got, s)
				}
			}
			for _, k := range tc.keep {
				if !strings.Contains(got, k) {
					t.Errorf("URL(%q) = %q lost %q", tc.in, got, k)
				}
			}
			if len(tc.secrets) > 0 && !strings.Contains(got, "xxxxx") {
				t.Errorf("URL(%q) = %q has no xxxxx marker", tc.in, got)
			}
			// Masking is idempotent.
			if again := redact.URL(got); again != got {
				t.Errorf("URL(MaskURL(%q)) = %q, want %q", tc.in, again, got)
			}
		})
	}
}

// FuzzURL checks that a URL's password never survives masking and that
// URL never panics.
func FuzzURL(f *testing.F) {
	for _, tc := range maskCases {
		f.Add(tc.in)
	}
	f.Add("postgres://user:correcthorse@host:5432/db?password=other&x=1#frag")
	f.Add("postgresql://a%20b:c%2Fd%3Fe@h/p%2Fq")
	f.Fuzz(func(t *testing.T, in string) {
		out := redact.URL(in)
		u, err := url.Parse(in)
		if err != nil || u.User == nil {
			return
		}
		p, ok := u.User.Password()
		if !ok || len(p) < 4 || p == "xxxxx" {
			return
		}
		// p must not occur elsewhere: neither in the input nor in the URL
		// rendered without its password (re-encoding may show other parts
		// decoded, and a part may run into the next one).
		if strings.Count(in, p) > 1 {
			return
		}
		rest := *u
		rest.User = url.UserPassword(u.User.Username(), "\x01")
		if strings.Contains(strings.ReplaceAll(rest.String(), "%01", "\x00"), p) {
			return
		}
		out = strings.ReplaceAll(out, "xxxxx", "\x00")
		if strings.Contains(out, p) {
			t.Errorf("URL(%q) = %q contains the password %q", in, out, p)
		}
	})
}
