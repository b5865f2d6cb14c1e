package target

import (
	"cmp"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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

// Spec is a parsed database spec (--db) with what the clients connect
// through (--via): the kind, the file (SQLiteFile) or URL (ServerURL,
// MySQLURL) it names and, for a URL with one TCP host, its address. The
// command line is parsed into a Spec once; everything after reads its
// fields.
type Spec struct {
	Kind SpecKind
	Path string // SQLiteFile: the file
	URL  string // ServerURL, MySQLURL: the URL
	// Version is TempPostgres's server version, "17" of temp-postgres@17
	// ("" for whichever is found first).
	Version string
	// Addr is where URL's server listens, zero for any other kind.
	Addr Addr
	// User and Database are the user and the database URL names ("" for
	// none), read with Addr: what logs in where, for what must log in
	// alike (a PgBouncer in front of the server).
	User, Database string
	// Via is what the clients connect through: the database itself
	// unless set.
	Via Via
	// Isolation is the level the clients' transactions run at
	// (--isolation); the server's default unless set.
	Isolation Isolation
}

// Addr is the one server a URL names: Host is "" for a URL that names
// none (libpq's default then); both are "" for one that names several or
// cannot be read.
type Addr struct {
	Host string // a name, an IP address or a Unix socket's directory
	Port string // the URL's, or its scheme's default (DefaultPort)
}

// TCP is host:port, or "" when a has no TCP address (no host, or a Unix
// socket).
func (a Addr) TCP() string {
	if a.Host == "" || strings.HasPrefix(a.Host, "/") {
		return ""
	}
	return net.JoinHostPort(a.Host, a.Port)
}

// addrOf is the server of the URL u (see Addr).
func addrOf(u string) Addr {
	p, err := url.Parse(u)
	if err != nil || strings.Contains(p.Host, ",") {
		return Addr{}
	}
	return Addr{Host: p.Hostname(), Port: cmp.Or(p.Port(), DefaultPort(u))}
}

// urlSpec is the spec of kind k at the URL u, its address, user and
// database read from it once.
func urlSpec(k SpecKind, u string) Spec {
	sp := Spec{Kind: k}
	sp.setURL(u)
	return sp
}

// setURL makes u sp's URL, with its address, user and database.
func (sp *Spec) setURL(u string) {
	sp.URL, sp.Addr, sp.User, sp.Database = u, addrOf(u), "", ""
	if p, err := url.Parse(u); err == nil {
		sp.User, sp.Database = p.User.Username(), strings.TrimPrefix(p.Path, "/")
	}
}

// checkPorts refuses a URL naming a port that is none (0, above 65535,
// not a number), in any of its hosts (host1:port1,host2:port2): it can
// reach nothing, so it is the user's to fix before anything starts. A
// URL that cannot be read is left to its driver, whose message says why.
func checkPorts(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return nil
	}
	for _, h := range strings.Split(p.Host, ",") {
		_, port, err := net.SplitHostPort(h)
		if err != nil || port == "" {
			continue // no port: the scheme's default
		}
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%w %s: port %q is none: give one from 1 to 65535 (or none for the default, %s)", ErrMalformedURL, MaskURL(u), port, DefaultPort(u))
		}
	}
	return nil
}

// WithHost is the URL u with its host:port replaced by addr (a proxy in
// front of the server); u is returned as it is when it cannot be read.
func WithHost(u, addr string) string {
	p, err := url.Parse(u)
	if err != nil {
		return u
	}
	p.Host = addr
	return p.String()
}

// ViaKind is how the clients reach the database.
type ViaKind int

const (
	// ViaDirect is straight to the database ("direct", the default).
	ViaDirect ViaKind = iota
	// ViaPgBouncer is through throwaway PgBouncers txnbench starts in
	// front of the server ("pgbouncer").
	ViaPgBouncer
	// ViaURL is through an existing pooler, by its postgres:// URL.
	ViaURL
)

// String is the kind as --via names it ("" for ViaURL, which is a URL).
func (k ViaKind) String() string {
	switch k {
	case ViaDirect:
		return "direct"
	case ViaPgBouncer:
		return "pgbouncer"
	}
	return ""
}

// Via is what the clients connect through (--via).
type Via struct {
	Kind ViaKind
	URL  string // ViaURL: the pooler's URL
	Addr Addr   // ViaURL: its address
	// Admin is a ViaURL's admin console (PgBouncer's, on the same
	// address), made once as --via is read (see adminURL).
	Admin string
	// PgBouncer is the throwaway PgBouncers' settings (ViaPgBouncer).
	PgBouncer PgBouncer
}

// PgBouncer is how the throwaway PgBouncers of --via pgbouncer are set up.
type PgBouncer struct {
	Mode string // pool_mode
	Size int    // default_pool_size
	Bin  string // the binary; "" = find it
	// Poolers is how many (behind a throwaway HAProxy when more than
	// one); 0 means 1.
	Poolers int
}

// Spec is the pooler's URL of a ViaURL as a spec of its own (a
// postgres:// URL: PostgreSQL's engine); zero for another Via.
func (v Via) Spec() Spec {
	if v.Kind != ViaURL {
		return Spec{}
	}
	return urlSpec(ServerURL, v.URL)
}

// String is v as --via gives it: direct, pgbouncer or the URL.
func (v Via) String() string {
	if v.Kind == ViaURL {
		return v.URL
	}
	return v.Kind.String()
}

// ParseVia reads --via: "direct", "pgbouncer" or the postgres:// URL of
// a pooler. Anything else is an error naming the accepted forms.
func ParseVia(s string) (Via, error) {
	switch {
	case s == ViaDirect.String():
		return Via{}, nil
	case s == ViaPgBouncer.String():
		return Via{Kind: ViaPgBouncer}, nil
	case isPostgresURL(s):
		if err := checkPorts(s); err != nil {
			return Via{}, fmt.Errorf("--via: %w", err)
		}
		return Via{Kind: ViaURL, URL: s, Addr: addrOf(s), Admin: adminURL(s)}, nil
	}
	return Via{}, fmt.Errorf("unknown --via %q: use direct, pgbouncer or a postgres:// URL of a pooler", MaskURL(s))
}

// adminURL is PgBouncer's admin console on the same address as the
// pooler URL u (its database "pgbouncer"), as the same user, with u's
// require_auth and TLS settings (sslmode, sslrootcert, ...) if it has
// them: the console is verified as the pooler is. The address and the
// user may be query parameters (host=/run/pgbouncer for a Unix socket):
// those are kept too; the rest (a database, runtime parameters PgBouncer's
// console would refuse) are not. "" when u cannot be read.
func adminURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return ""
	}
	p.Path = "/pgbouncer"
	q := url.Values{}
	for k, v := range p.Query() {
		if adminParams[k] || strings.HasPrefix(k, "ssl") {
			q[k] = v
		}
	}
	p.RawQuery = q.Encode()
	return p.String()
}

// adminParams are the pooler URL's query parameters its console keeps,
// besides the TLS ones: where it is, who connects and how.
var adminParams = map[string]bool{"host": true, "hostaddr": true, "port": true, "user": true, "password": true, "passfile": true, "connect_timeout": true, "require_auth": true}

// mysqlScheme begins a MySQL-protocol server's URL.
const mysqlScheme = "mysql://"

func isPostgresURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// ParseSpec reads a database spec: "" or "sqlite:" (a temporary SQLite
// file), "sqlite:PATH", "temp-postgres", "temp-postgres@VERSION" (VERSION
// a major version or a release: 17, 17.10), "temp-mariadb", a postgres://
// or postgresql:// URL, or a mysql:// URL. Anything else is an error naming
// the accepted forms. The clients connect directly (Via is zero).
func ParseSpec(s string) (Spec, error) {
	counts.parses.Add(1)
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
			return Spec{}, fmt.Errorf("--db %s: %w", s, ErrVersion)
		}
		return Spec{Kind: TempPostgres, Version: v}, nil
	case s == TempMariaDBSpec:
		return Spec{Kind: TempMariaDB}, nil
	case isPostgresURL(s):
		if err := checkPorts(s); err != nil {
			return Spec{}, err
		}
		return urlSpec(ServerURL, s), nil
	case strings.HasPrefix(s, mysqlScheme):
		if err := checkPorts(s); err != nil {
			return Spec{}, err
		}
		return urlSpec(MySQLURL, s), nil
	}
	if k, ok := throwawayKind(s); ok {
		return Spec{Kind: k}, nil
	}
	return Spec{}, fmt.Errorf("unknown database %q: use sqlite:PATH, temp-postgres, temp-mariadb, a postgres:// URL or a mysql:// URL", MaskURL(s))
}

// String is the spec as --db gives it ("sqlite:" for the temporary
// SQLite file).
func (sp Spec) String() string {
	switch sp.Kind {
	case SQLiteTemp:
		return "sqlite:"
	case SQLiteFile:
		return "sqlite:" + sp.Path
	case TempPostgres:
		if sp.Version != "" {
			return TempPostgresSpec + "@" + sp.Version
		}
		return TempPostgresSpec
	}
	if f := infoOf(sp.Kind).form; f != "" {
		return f
	}
	return sp.URL
}

// kindInfo is what a kind of spec is: the engine that owns it and
// whether it is remote (a server other processes reach), throwaway (a
// server txnbench starts itself) or embedded. Every question a caller
// asks of a Spec is answered here, so that nothing outside target (and
// the engines) compares kinds.
type kindInfo struct {
	engine    string // the engine's name (see Spec.Engine)
	form      string // a throwaway's --db name, "" for others
	remote    bool
	throwaway bool
	embedded  bool
}

var kinds = struct {
	sync.RWMutex
	all []kindInfo
}{all: []kindInfo{
	SQLiteTemp:   {engine: "sqlite", embedded: true},
	SQLiteFile:   {engine: "sqlite", embedded: true},
	TempPostgres: {engine: "postgres", form: TempPostgresSpec, throwaway: true},
	ServerURL:    {engine: "postgres", remote: true},
	TempMariaDB:  {engine: "mariadb", form: TempMariaDBSpec, throwaway: true},
	MySQLURL:     {engine: "mariadb", remote: true},
}}

func infoOf(k SpecKind) kindInfo {
	kinds.RLock()
	defer kinds.RUnlock()
	if int(k) < len(kinds.all) {
		return kinds.all[k]
	}
	return kindInfo{}
}

// RegisterThrowaway makes form (such as "temp-mysql") a --db form that
// names a throwaway server of the engine named engine, started by it
// (see internal/engine), and returns its kind. An engine package calls
// it once, as its package variable is made; the form's server is opened
// by the URL its engine starts, through that URL's driver.
func RegisterThrowaway(form, engine string) SpecKind {
	kinds.Lock()
	defer kinds.Unlock()
	for _, k := range kinds.all {
		if k.form == form {
			panic("target: --db " + form + " registered twice")
		}
	}
	kinds.all = append(kinds.all, kindInfo{engine: engine, form: form, throwaway: true})
	return SpecKind(len(kinds.all) - 1)
}

// throwawayKind is the kind of a registered throwaway form s (no
// version), ok false when s is none.
func throwawayKind(s string) (SpecKind, bool) {
	kinds.RLock()
	defer kinds.RUnlock()
	for k, i := range kinds.all {
		if i.form == s && i.form != "" {
			return SpecKind(k), true
		}
	}
	return 0, false
}

// ThrowawayForm is the --db form of the engine named engine's throwaway
// server ("temp-postgres"), "" when it has none.
func ThrowawayForm(engine string) string {
	kinds.RLock()
	defer kinds.RUnlock()
	for _, k := range kinds.all {
		if k.engine == engine && k.throwaway {
			return k.form
		}
	}
	return ""
}

// Engine is the name of the engine that owns sp's kind: "postgres",
// "mariadb", "sqlite", or a registered throwaway's (RegisterThrowaway).
func (sp Spec) Engine() string { return infoOf(sp.Kind).engine }

// Embedded reports whether sp is an embedded database (SQLite): no
// server, no network.
func (sp Spec) Embedded() bool { return infoOf(sp.Kind).embedded }

// Throwaway reports whether sp names a server txnbench starts itself
// (temp-postgres, temp-mariadb).
func (sp Spec) Throwaway() bool { return infoOf(sp.Kind).throwaway }

// Remote reports whether sp names a server other processes reach: a
// URL (postgres://, mysql://), not an embedded database nor a throwaway
// server of this process's own. It is the one answer to that question
// (the run table, split runs and the telemetry's server URL ask it).
func (sp Spec) Remote() bool { return infoOf(sp.Kind).remote }

// Temporary reports whether sp's database is made for this process and
// gone at its end (a throwaway server, the temporary SQLite file): it
// starts empty.
func (sp Spec) Temporary() bool { return sp.Throwaway() || sp.Kind == SQLiteTemp }

// Form is what sort of database sp is, as a result records it and diff
// compares it (not its URL: a throwaway server gets a new port each
// run): a throwaway server's --db form without its version
// ("temp-postgres", "temp-mariadb"), "sqlite" for an embedded database,
// "server" for a URL, and for a pooler's URL given without --db.
func (sp Spec) Form() string {
	switch i := infoOf(sp.Kind); {
	case sp.Via.Kind == ViaURL && !i.remote:
		return "server"
	case i.throwaway:
		return i.form
	case i.embedded:
		return i.engine
	}
	return "server"
}

// File is the database file the spec names (sqlite:PATH's PATH), "" when
// it names none: a server, or a temporary file of its own.
func (sp Spec) File() string {
	if sp.Kind == SQLiteFile {
		return sp.Path
	}
	return ""
}

// ErrVersion marks a temp-postgres@VERSION whose VERSION is none.
var ErrVersion = errors.New("give a PostgreSQL version such as temp-postgres@17 or temp-postgres@17.10")

// versionRE is a PostgreSQL version as temp-postgres@VERSION takes it.
var versionRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)

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
	if strings.HasPrefix(u, mysqlScheme) {
		return "3306"
	}
	return "5432"
}

// counts are ParseSpec's and Open's calls in this process.
var counts struct{ parses, opens atomic.Int64 }

// Counts are how many times this process has called ParseSpec and Open:
// a run parses the user's --db once (the command line does) and opens one
// Target per endpoint, which tests hold it to.
func Counts() (parses, opens int64) { return counts.parses.Load(), counts.opens.Load() }

// URLSpec is the spec of a URL txnbench made itself (a throwaway
// server's, a pooler's, a proxy's) whose kind its maker knows: it is
// never read again by ParseSpec.
func URLSpec(k SpecKind, u string) Spec { return urlSpec(k, u) }

// WithURL is sp (its kind, its isolation) at the URL u, a URL of the same
// kind made from sp's (a parameter added, a proxy's address), reaching it
// directly.
func (sp Spec) WithURL(u string) Spec {
	sp.setURL(u)
	sp.Via = Via{}
	return sp
}

// WithParam is sp with key=value in its URL's parameters, unless they set
// key already (see WithParam).
func (sp Spec) WithParam(key, value string) Spec { return sp.WithURL(WithParam(sp.URL, key, value)) }

// WithHost is sp at the address addr (a proxy in front of its server).
func (sp Spec) WithHost(addr string) Spec { return sp.WithURL(WithHost(sp.URL, addr)) }
