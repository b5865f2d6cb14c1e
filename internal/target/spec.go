package target

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
)

// SpecKind is the kind of database a Spec names.
type SpecKind int

const (
	// SQLiteTemp is "sqlite:" (or no spec at all): SQLite in a temporary
	// file, removed on Close.
	SQLiteTemp SpecKind = iota
	// SQLiteFile is "sqlite:PATH": SQLite in the file PATH.
	SQLiteFile
	// TempPostgres is "temp-postgres" or "temp-postgres@VERSION": a
	// throwaway local cluster, started by the caller (see localdb), not by
	// Open.
	TempPostgres
	// ServerURL is a postgres:// or postgresql:// URL of a server or pooler.
	ServerURL
	// TempMariaDB is "temp-mariadb": a throwaway local MariaDB, started by
	// the caller (see localdb), not by Open.
	TempMariaDB
	// MySQLURL is a mysql:// URL of a MySQL-protocol server (MariaDB,
	// MySQL).
	MySQLURL
)

// TempPostgresSpec is the spec that names a throwaway local cluster.
const TempPostgresSpec = "temp-postgres"

// TempMariaDBSpec is the spec that names a throwaway local MariaDB.
const TempMariaDBSpec = "temp-mariadb"

// Spec is a parsed database spec (--db, --via): its kind, and the file
// (SQLiteFile) or URL (ServerURL, MySQLURL) it names.
type Spec struct {
	Kind SpecKind
	Path string // SQLiteFile: the file
	URL  string // ServerURL, MySQLURL: the URL as given
	// Version is TempPostgres's server version, "17" of temp-postgres@17
	// ("" for whichever is found first).
	Version string
}

// ParseSpec reads a database spec: "" or "sqlite:" (a temporary SQLite
// file), "sqlite:PATH", "temp-postgres", "temp-postgres@VERSION" (VERSION
// a major version or a release: 17, 17.10), "temp-mariadb", a postgres://
// or postgresql:// URL, or a mysql:// URL. Anything else is an error naming
// the accepted forms.
func ParseSpec(s string) (Spec, error) {
	switch {
	case s == "", s == "sqlite:":
		return Spec{Kind: SQLiteTemp}, nil
	case strings.HasPrefix(s, "sqlite:"):
		return Spec{Kind: SQLiteFile, Path: strings.TrimPrefix(s, "sqlite:")}, nil
	case s == TempPostgresSpec:
		return Spec{Kind: TempPostgres}, nil
	case strings.HasPrefix(s, TempPostgresSpec+"@"):
		v := strings.TrimPrefix(s, TempPostgresSpec+"@")
		if !versionRE.MatchString(v) {
			return Spec{}, fmt.Errorf("--db %s: give a PostgreSQL version such as temp-postgres@17 or temp-postgres@17.10", s)
		}
		return Spec{Kind: TempPostgres, Version: v}, nil
	case s == TempMariaDBSpec:
		return Spec{Kind: TempMariaDB}, nil
	case strings.HasPrefix(s, "postgres://"), strings.HasPrefix(s, "postgresql://"):
		return Spec{Kind: ServerURL, URL: s}, nil
	case strings.HasPrefix(s, "mysql://"):
		return Spec{Kind: MySQLURL, URL: s}, nil
	}
	return Spec{}, fmt.Errorf("unknown database %q: use sqlite:PATH, temp-postgres, temp-mariadb, a postgres:// URL or a mysql:// URL", MaskURL(s))
}

// versionRE is a PostgreSQL version as temp-postgres@VERSION takes it.
var versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

// IsTempPostgres reports whether s names a throwaway local cluster.
func IsTempPostgres(s string) bool {
	sp, err := ParseSpec(s)
	return err == nil && sp.Kind == TempPostgres
}

// IsServerURL reports whether s is a postgres:// or postgresql:// URL.
func IsServerURL(s string) bool {
	sp, err := ParseSpec(s)
	return err == nil && sp.Kind == ServerURL
}

// WithParam adds key=value to a URL's query parameters, unless the URL
// already sets key (a value given by the user wins); value is escaped
// (a session name txnbench-PID@HOST keeps its @ out of the URL's authority).
func WithParam(u, key, value string) string {
	if strings.Contains(u, key+"=") {
		return u
	}
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + key + "=" + url.QueryEscape(value)
}

// ErrMalformedURL marks a database URL that cannot be parsed.
var ErrMalformedURL = errors.New("malformed database URL")

// ErrAuthRefused marks a login the client broke off itself: the server
// asked for an authentication method the URL does not allow (a cleartext
// password or an MD5 hash where require_auth asks for SCRAM). It is of
// errclass.Auth.
var ErrAuthRefused = errors.New("the client refused the server's authentication method")

// DefaultPort is the server port a URL means when it names none: 3306
// for mysql://, else PostgreSQL's 5432.
func DefaultPort(u string) string {
	if strings.HasPrefix(u, "mysql://") {
		return "3306"
	}
	return "5432"
}
