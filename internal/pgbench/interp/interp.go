package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/prng"
	"github.com/txnbench/txnbench/internal/pgbench/script"
	"github.com/txnbench/txnbench/internal/target"
)

// Config is what every client of a run shares. It is compiled on first
// use and must not change afterwards.
type Config struct {
	Scripts []*script.Script
	Mode    target.QueryMode
	// Defines are the -D variables, as strings.
	Defines map[string]string
	// Scale is the :scale variable (unless -D defines it).
	Scale int
	// Seeds gives each client's random state, :random_seed and
	// :default_seed (unless -D defines them).
	Seeds prng.Seeds
	// Stderr receives debug() lines and the output of \shell and
	// \setshell's standard error; nil discards them.
	Stderr io.Writer
	// Stdout receives what \shell commands print, as pgbench's system()
	// lets them write to its standard output; nil discards it.
	Stdout io.Writer
	// OnCommand, when set, sees the time each executed command took
	// (pgbench -r), from the client's goroutine.
	OnCommand func(client, script, cmd int, d time.Duration)
	// Debug writes pgbench's --debug lines to Stderr: each script
	// started, meta command executed and statement sent.
	Debug bool
	// Tags, when set, has one comment per script that is put before the
	// text of each of its SQL commands (a workload.OpTag, so the server's
	// statement statistics name the script). pgbench sends no such thing:
	// `txnbench pgbench` leaves it nil.
	Tags []string

	once sync.Once
	prog *program
}

// program is a Config compiled: variable slots and per-command data.
type program struct {
	names   []string       // slot -> variable name
	slots   map[string]int // variable name -> slot
	scripts [][]compiled   // per script, per command
	builtin [4]int         // slots of client_id, scale, random_seed, default_seed
	params  int            // most parameters of a command
}

// compiled is one command's data resolved against the slots.
type compiled struct {
	params []int  // extended/prepared: slot of $1..$n
	parts  []part // simple: text and variable slots
	sql    string // the text sent in extended/prepared mode
	name   string // prepared statement name (pgbench's P_n)
	set    int    // \set, \setshell target slot; -1 when the name is invalid
	sleep  int    // \sleep :var slot, or -1
	shell  []shellArg
}

type part struct {
	text string // literal text, or ":name" kept when the variable is unset
	slot int    // -1 for literal text
}

type shellArg struct {
	text string // literal (with one colon of "::x" removed)
	slot int    // -1 for a literal
}

func (cfg *Config) program() *program {
	cfg.once.Do(func() { cfg.prog = compile(cfg) })
	return cfg.prog
}

func compile(cfg *Config) *program {
	p := &program{slots: map[string]int{}}
	slot := func(name string) int {
		if s, ok := p.slots[name]; ok {
			return s
		}
		p.slots[name] = len(p.names)
		p.names = append(p.names, name)
		return len(p.names) - 1
	}
	for i, n := range []string{"client_id", "scale", "random_seed", "default_seed"} {
		p.builtin[i] = slot(n)
	}
	for n := range cfg.Defines {
		slot(n)
	}
	prepnum := 0
	for k, s := range cfg.Scripts {
		var tag string
		if k < len(cfg.Tags) {
			tag = cfg.Tags[k]
		}
		cs := make([]compiled, len(s.Commands))
		for i, c := range s.Commands {
			cc := &cs[i]
			cc.set, cc.sleep = -1, -1
			if c.Kind == script.SQL {
				for _, v := range c.Params {
					cc.params = append(cc.params, slot(v))
				}
				p.params = max(p.params, len(cc.params))
				if tag != "" {
					cc.parts = append(cc.parts, part{text: tag, slot: -1})
				}
				for _, pt := range c.Parts {
					if pt.Var != "" {
						cc.parts = append(cc.parts, part{text: ":" + pt.Var, slot: slot(pt.Var)})
					} else {
						cc.parts = append(cc.parts, part{text: pt.Text, slot: -1})
					}
				}
				cc.sql = tag + c.ParamSQL
				if cfg.Mode == target.QuerySimple {
					cc.sql = tag + c.SQL
				}
				if cfg.Mode == target.QueryPrepared {
					cc.name = "P_" + strconv.Itoa(prepnum)
					prepnum++
				}
				continue
			}
			if c.Expr != nil {
				for _, v := range c.Expr.Vars() {
					slot(v)
				}
			}
			switch c.Meta {
			case script.Set, script.SetShell:
				if script.ValidVariableName(c.Var) {
					cc.set = slot(c.Var)
				}
			case script.Sleep:
				if c.Sleep.Var != "" {
					cc.sleep = slot(c.Sleep.Var)
				}
			}
			if c.Meta == script.Shell || c.Meta == script.SetShell {
				args := c.Args
				if c.Meta == script.SetShell && len(args) > 0 {
					args = args[1:]
				}
				for _, a := range args {
					switch {
					case len(a) == 0 || a[0] != ':':
						cc.shell = append(cc.shell, shellArg{text: a, slot: -1})
					case len(a) > 1 && a[1] == ':':
						cc.shell = append(cc.shell, shellArg{text: a[1:], slot: -1})
					default:
						cc.shell = append(cc.shell, shellArg{text: a, slot: slot(a[1:])})
					}
				}
			}
		}
		p.scripts = append(p.scripts, cs)
	}
	return p
}

// variable is one client variable: a string (from -D, \gset, \aset), or a
// value (from \set, \setshell and the automatic variables).
type variable struct {
	defined bool
	isStr   bool       // str holds it; val is parsed from it on first use
	str     string     //
	val     expr.Value // the value, once known (hasVal)
	hasVal  bool       //
	txt     []byte     // the text substituted into SQL, when txtOK
	txtOK   bool       //
}

// Client is one pgbench client: its variables, random state and place in
// the script. A Client is used by one goroutine.
type Client struct {
	cfg  *Config
	p    *program
	id   int
	vars []variable
	dyn  map[string]int // slots of variables only \gset and \aset name

	rs, snap prng.State
	needSnap bool

	script, cmd int // the command running, for debug() and errors

	debugPrepared map[string]bool // statements --debug said it prepared

	// seen are the last variables expressions named, with their slots: an
	// expression names its variables by the same strings at every
	// evaluation, which compare equal at once (same pointer), where the
	// map of names hashes each (issue 31). A slot never changes.
	seen  [4]seenVar
	nseen int

	params  [][]byte
	sqlBuf  []byte
	results resultSink
	timer   *time.Timer
}

// NewClient makes client id: the -D variables, then client_id, scale,
// random_seed and default_seed unless -D defined them, and the client's
// random state from cfg.Seeds.
func NewClient(cfg *Config, id int) *Client {
	p := cfg.program()
	c := &Client{cfg: cfg, p: p, id: id, vars: make([]variable, len(p.names)), needSnap: true}
	c.params = make([][]byte, 0, p.params)
	for n, v := range cfg.Defines {
		c.putString(p.slots[n], v)
	}
	auto := [4]int64{int64(id), int64(cfg.Scale), cfg.Seeds.RandomSeed, cfg.Seeds.DefaultSeed}
	for i, s := range p.builtin {
		if !c.vars[s].defined {
			c.putValue(s, expr.IntValue(auto[i]))
		}
	}
	if id < len(cfg.Seeds.Client) {
		c.rs.Seed(cfg.Seeds.Client[id])
	}
	c.results.c = c
	return c
}

// Begin starts a new transaction: the random state is remembered, so
// that a retry draws the same values.
func (c *Client) Begin() { c.needSnap = true }

type seenVar struct {
	name string
	slot int
}

// Var returns a variable's value for an expression (expr.Env).
func (c *Client) Var(name string) (expr.Value, error) {
	s, ok := -1, false
	for i := range c.seen {
		if c.seen[i].name == name && name != "" {
			s, ok = c.seen[i].slot, true
			break
		}
	}
	if !ok {
		if s, ok = c.slot(name); ok {
			c.seen[c.nseen%len(c.seen)] = seenVar{name: name, slot: s}
			c.nseen++
		}
	}
	if !ok || !c.vars[s].defined {
		return expr.Value{}, expr.UndefinedVariable(name)
	}
	v := &c.vars[s]
	if !v.hasVal {
		val, err := expr.ParseValue(name, v.str)
		if err != nil {
			return expr.Value{}, err
		}
		v.val, v.hasVal = val, true
	}
	return v.val, nil
}

// Rand is the client's random state (expr.Env).
func (c *Client) Rand() *prng.State { return &c.rs }

// Debug prints debug()'s line (expr.Debugger).
func (c *Client) Debug(v expr.Value) {
	if c.cfg.Stderr != nil {
		fmt.Fprintf(c.cfg.Stderr, "debug(script=%d,command=%d): %s\n", c.script, c.cmd+1, v.DebugString())
	}
}

// Variable returns a variable's text as pgbench substitutes it, and
// whether it is defined.
func (c *Client) Variable(name string) (string, bool) {
	s, ok := c.slot(name)
	if !ok || !c.vars[s].defined {
		return "", false
	}
	return string(c.text(s)), true
}

func (c *Client) slot(name string) (int, bool) {
	if s, ok := c.p.slots[name]; ok {
		return s, true
	}
	s, ok := c.dyn[name]
	return s, ok
}

// create returns name's slot, making it when needed; pgbench checks the
// name only then.
func (c *Client) create(context, name string) (int, error) {
	if s, ok := c.slot(name); ok {
		return s, nil
	}
	if !script.ValidVariableName(name) {
		return -1, fmt.Errorf("%s: invalid variable name: %q", context, name)
	}
	if c.dyn == nil {
		c.dyn = map[string]int{}
	}
	c.dyn[name] = len(c.vars)
	c.vars = append(c.vars, variable{})
	return len(c.vars) - 1, nil
}

func (c *Client) putString(s int, str string) {
	v := &c.vars[s]
	v.defined, v.isStr, v.str, v.hasVal = true, true, str, false
	v.txt, v.txtOK = append(v.txt[:0], str...), true
}

func (c *Client) putValue(s int, val expr.Value) {
	v := &c.vars[s]
	v.defined, v.isStr, v.str, v.val, v.hasVal, v.txtOK = true, false, "", val, true, false
}

// text is the variable's text (pgbench's getVariable): its string, or
// its value rendered; valid until the variable changes.
func (c *Client) text(s int) []byte {
	v := &c.vars[s]
	if !v.txtOK {
		v.txt, v.txtOK = v.val.Append(v.txt[:0]), true
	}
	return v.txt
}

// Run runs one transaction of script si on conn. Called again without
// Begin after an error, it is a retry: the random state goes back to what
// it was at the transaction's start, as pgbench's does.
//
// Errors: a failed SQL command returns an *SQLError wrapping the driver's
// error (target.Classify tells retryable ones); a script runtime error
// returns an *Error wrapping workload.ErrAbortClient. On any error a
// transaction block or pipeline left open is ended (rolled back).
func (c *Client) Run(ctx context.Context, conn target.ScriptConn, si int) error {
	if c.needSnap {
		c.snap, c.needSnap = c.rs, false
	} else {
		c.rs = c.snap
	}
	err := c.run(ctx, conn, si)
	if err != nil {
		c.cleanup(ctx, conn)
		return err
	}
	c.needSnap = true
	return nil
}

// cleanup ends what a failed transaction left open, as pgbench does after
// an error before it retries or gives up.
func (c *Client) cleanup(ctx context.Context, conn target.ScriptConn) {
	if conn.Broken() {
		return
	}
	ctx = context.WithoutCancel(ctx)
	if conn.InPipeline() {
		conn.EndPipeline(ctx)
	}
	if conn.InTransaction() {
		conn.Statement(ctx, target.QuerySimple, "", "ROLLBACK", nil, nil)
	}
}

func (c *Client) run(ctx context.Context, conn target.ScriptConn, si int) error {
	cmds := c.cfg.Scripts[si].Commands
	comp := c.p.scripts[si]
	c.script = si
	if c.cfg.Debug {
		c.debugf("client %d executing script \"%s\"", c.id, c.cfg.Scripts[si].Desc)
	}
	// Each command is timed from the end of the one before (the clock is
	// read once per command, issue 31), the first from here.
	timed := c.cfg.OnCommand != nil
	var t0 time.Time
	if timed {
		t0 = time.Now()
	}
	for i := 0; i < len(cmds); {
		cmd := cmds[i]
		c.cmd = i
		next := i + 1
		if cmd.Kind == script.SQL {
			if err := c.sql(ctx, conn, cmd, &comp[i]); err != nil {
				return err
			}
		} else {
			switch cmd.Meta {
			case script.If, script.Elif:
				if cmd.Meta == script.Elif {
					// Reached in sequence: the previous branch ran.
					next = cmd.End + 1
					break
				}
				var err error
				if next, err = c.branch(cmds, i, &t0); err != nil {
					return err
				}
				i = next
				continue // branch timed what it evaluated
			case script.Else:
				if c.cfg.Debug {
					c.debugMeta(cmd)
				}
				next = cmd.End + 1
			case script.Endif:
				if c.cfg.Debug {
					c.debugMeta(cmd)
				}
			default:
				if c.cfg.Debug {
					c.debugMeta(cmd)
				}
				if err := c.meta(ctx, conn, cmd, &comp[i]); err != nil {
					return err
				}
			}
		}
		if timed {
			t1 := time.Now()
			c.cfg.OnCommand(c.id, si, i, t1.Sub(t0))
			t0 = t1
		}
		i = next
	}
	c.cmd = len(cmds)
	if conn.InPipeline() {
		return c.abortf(nil, "client %d aborted: end of script reached with pipeline open", c.id)
	}
	if conn.InTransaction() {
		// pgbench counts the transaction, then aborts the client
		return &Error{Msg: fmt.Sprintf("client %d aborted: end of script reached without completing the last transaction", c.id), Completed: true}
	}
	return nil
}

// branch evaluates \if at i (started at *t0) and the \elif conditions it
// falls through to, timing each from the end of the one before (*t0 is
// left at the last one's end), and returns the command to go on with.
func (c *Client) branch(cmds []*script.Command, i int, t0 *time.Time) (int, error) {
	for {
		cmd := cmds[i]
		if c.cfg.Debug && (cmd.Meta == script.If || cmd.Meta == script.Elif) {
			c.debugMeta(cmd)
		}
		if cmd.Meta == script.Else || cmd.Meta == script.Endif {
			return i + 1, nil // \else's branch, or past \endif
		}
		c.cmd = i
		v, err := cmd.Expr.Eval(c)
		if err != nil {
			return 0, c.commandFailed(cmd.Meta.String(), "evaluation of meta-command failed", err)
		}
		if c.cfg.OnCommand != nil {
			t1 := time.Now()
			c.cfg.OnCommand(c.id, c.script, i, t1.Sub(*t0))
			*t0 = t1
		}
		if truth(v) {
			return i + 1, nil
		}
		i = cmd.Else
	}
}

// truth is pgbench's valueTruth: NULL and zero are false.
func truth(v expr.Value) bool {
	switch v.Kind {
	case expr.Bool:
		return v.B
	case expr.Int:
		return v.I != 0
	case expr.Double:
		return v.D != 0
	}
	return false
}

// sql sends one SQL command and stores what \gset or \aset asks for.
func (c *Client) sql(ctx context.Context, conn target.ScriptConn, cmd *script.Command, cc *compiled) error {
	if cmd.Gset != nil && conn.InPipeline() {
		name := "gset"
		if cmd.Gset.All {
			name = "aset"
		}
		return c.commandFailed(name, "\\"+name+" is not allowed in pipeline mode", nil)
	}
	var sql string
	c.params = c.params[:0]
	if c.cfg.Mode == target.QuerySimple {
		c.sqlBuf = c.sqlBuf[:0]
		for _, pt := range cc.parts {
			if pt.slot >= 0 && c.vars[pt.slot].defined {
				c.sqlBuf = append(c.sqlBuf, c.text(pt.slot)...)
			} else {
				c.sqlBuf = append(c.sqlBuf, pt.text...)
			}
		}
		// Statement does not keep the text of a simple query.
		sql = unsafe.String(unsafe.SliceData(c.sqlBuf), len(c.sqlBuf))
	} else {
		sql = cc.sql
		for _, s := range cc.params {
			if c.vars[s].defined {
				c.params = append(c.params, c.text(s))
			} else {
				c.params = append(c.params, nil) // SQL NULL, as pgbench sends
			}
		}
	}
	if c.cfg.Debug {
		c.debugSQL(cc, sql)
	}
	var sink target.RowSink
	if cmd.Gset != nil || cmd.Compound > 1 {
		c.results.reset(cmd.Gset)
		sink = &c.results
	}
	err := conn.Statement(ctx, c.cfg.Mode, cc.name, sql, c.params, sink)
	if c.cfg.Debug {
		c.debugf("client %d receiving", c.id)
	}
	for i := range c.params {
		c.params[i] = nil
	}
	if err != nil {
		var abort *Error
		if errors.As(err, &abort) {
			return abort // storing into a variable failed
		}
		if conn.InPipeline() {
			return c.abortf(err, "client %d aborted in command %d (SQL) of script %d; SQL command send failed", c.id, c.cmd, c.script)
		}
		return c.sqlError(err, c.results.n, strings.Clone(sql))
	}
	if cmd.Gset != nil && !cmd.Gset.All {
		return c.results.storeLast()
	}
	return nil
}

// sqlError words a failed statement as pgbench does.
func (c *Client) sqlError(err error, query int, sql string) error {
	if ctx := target.Classify(err); ctx == errclass.Canceled {
		return err
	}
	return &SQLError{Client: c.id, Script: c.script, Command: c.cmd, Query: query, Err: err, SQL: sql}
}

// meta runs the meta commands other than the conditionals.
func (c *Client) meta(ctx context.Context, conn target.ScriptConn, cmd *script.Command, cc *compiled) error {
	switch cmd.Meta {
	case script.Set:
		v, err := cmd.Expr.Eval(c)
		if err != nil {
			return c.commandFailed("set", "evaluation of meta-command failed", err)
		}
		if cc.set < 0 {
			return c.commandFailed("set", "assignment of meta-command failed",
				fmt.Errorf("set: invalid variable name: %q", cmd.Var))
		}
		c.putValue(cc.set, v)
	case script.Sleep:
		return c.sleep(ctx, cmd, cc)
	case script.Shell, script.SetShell:
		return c.shell(ctx, cmd, cc)
	case script.StartPipeline:
		if c.cfg.Mode == target.QuerySimple {
			return c.commandFailed("startpipeline", "cannot use pipeline mode with the simple query protocol", nil)
		}
		if conn.InPipeline() {
			return c.commandFailed("startpipeline", "already in pipeline mode", nil)
		}
		if c.cfg.Mode == target.QueryPrepared {
			// pgbench prepares a pipeline's statements before it starts,
			// so that a BEGIN ISOLATION LEVEL in it takes no snapshot.
			cmds := c.cfg.Scripts[c.script].Commands
			for j := c.cmd + 1; j < len(cmds) && !(cmds[j].Kind == script.Meta && cmds[j].Meta == script.EndPipeline); j++ {
				if cmds[j].Kind == script.SQL {
					pc := &c.p.scripts[c.script][j]
					if err := conn.Prepare(ctx, pc.name, pc.sql); err != nil {
						if target.Classify(err) == errclass.Canceled {
							return err
						}
						return c.commandFailed("startpipeline", "failed to enter pipeline mode", err)
					}
				}
			}
		}
		if err := conn.StartPipeline(ctx); err != nil {
			return c.commandFailed("startpipeline", "failed to enter pipeline mode", err)
		}
	case script.SyncPipeline:
		if !conn.InPipeline() {
			return c.commandFailed("syncpipeline", "not in pipeline mode", nil)
		}
		if err := conn.SyncPipeline(ctx); err != nil {
			return c.commandFailed("syncpipeline", "failed to send a pipeline sync", err)
		}
	case script.EndPipeline:
		if !conn.InPipeline() {
			return c.commandFailed("endpipeline", "not in pipeline mode", nil)
		}
		if err := conn.EndPipeline(ctx); err != nil {
			return c.sqlError(err, 0, "")
		}
	default:
		return c.commandFailed(cmd.Meta.String(), "unknown meta-command", nil)
	}
	return nil
}

// sleep is pgbench's \sleep: a constant or a variable read as atoi reads
// it, in the command's unit (seconds by default), computed in a C int.
func (c *Client) sleep(ctx context.Context, cmd *script.Command, cc *compiled) error {
	n := int32(cmd.Sleep.N)
	if cmd.Sleep.Var != "" {
		if cc.sleep < 0 || !c.vars[cc.sleep].defined {
			return c.commandFailed("sleep", "execution of meta-command failed",
				fmt.Errorf("sleep: undefined variable %q", cmd.Sleep.Var))
		}
		txt := c.text(cc.sleep)
		n = atoi(txt)
		if n == 0 && (len(txt) == 0 || txt[0] < '0' || txt[0] > '9') {
			return c.commandFailed("sleep", "execution of meta-command failed",
				fmt.Errorf("sleep: invalid sleep time %q for variable %q", txt, cmd.Sleep.Var))
		}
	}
	unit := cmd.Sleep.Unit
	if unit == 0 {
		unit = 1000000
	}
	us := n * int32(unit) // wraps as pgbench's int does
	if us <= 0 {
		return nil
	}
	d := time.Duration(us) * time.Microsecond
	if c.timer == nil {
		c.timer = time.NewTimer(d)
	} else {
		c.timer.Reset(d)
	}
	select {
	case <-c.timer.C:
		return nil
	case <-ctx.Done():
		c.timer.Stop()
		c.timer = nil // whatever it holds, the next sleep starts afresh
		return ctx.Err()
	}
}

// atoi is C's atoi: leading white space, a sign, digits; the rest ignored;
// the result as a C int.
func atoi(b []byte) int32 {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	var v int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		if v < 1<<62 {
			v = v*10 + int64(b[i]-'0')
		}
	}
	if neg {
		v = -v
	}
	return int32(v)
}

// commandFailed is pgbench's commandFailed: the client aborts in the
// current command; cause is what pgbench logged just before, if anything.
func (c *Client) commandFailed(cmd, msg string, cause error) error {
	return c.abortf(cause, "client %d aborted in command %d (%s) of script %d; %s", c.id, c.cmd, cmd, c.script, msg)
}

// debugf writes one of pgbench's --debug lines.
func (c *Client) debugf(format string, args ...any) {
	if c.cfg.Stderr != nil {
		fmt.Fprintf(c.cfg.Stderr, "pgbench: "+format+"\n", args...)
	}
}

// debugMeta is pgbench's line for a meta command it executes: its name
// and words (\set's variable only, \if's expression not).
func (c *Client) debugMeta(cmd *script.Command) {
	line := "\\" + cmd.Meta.String()
	switch cmd.Meta {
	case script.Set:
		line += " " + cmd.Var
	case script.If, script.Elif, script.Else, script.Endif:
	default:
		if len(cmd.Args) > 0 {
			line += " " + strings.Join(cmd.Args, " ")
		}
	}
	c.debugf("client %d executing %s", c.id, line)
}

// debugSQL is pgbench's line for a statement sent: its text, or in
// prepared mode its name, after preparing it the first time.
func (c *Client) debugSQL(cc *compiled, sql string) {
	switch c.cfg.Mode {
	case target.QueryPrepared:
		if c.debugPrepared == nil {
			c.debugPrepared = map[string]bool{}
		}
		if !c.debugPrepared[cc.name] {
			c.debugPrepared[cc.name] = true
			c.debugf("client %d preparing %s", c.id, cc.name)
		}
		c.debugf("client %d sending %s", c.id, cc.name)
	default:
		c.debugf("client %d sending %s", c.id, sql)
	}
}

func (c *Client) abortf(cause error, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf(format, args...), Cause: cause}
}
