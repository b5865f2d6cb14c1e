package script

import (
	"errors"
	"fmt"
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
	"github.com/txnbench/txnbench/internal/pgbench/expr"
)

// maxArgs is pgbench's MAX_ARGS: a command has at most maxArgs words
// (name included), an SQL command at most maxArgs-1 parameters.
const maxArgs = 256

// ErrorKind tells pgbench's kinds of script errors apart (they are worded
// differently).
type ErrorKind uint8

// Error kinds.
const (
	SyntaxErr    ErrorKind = iota // "<file>:<line>: <msg>..." (syntax_error)
	ConditionErr                  // condition error in script "<file>" command <n>: <msg>
	EmptyErr                      // empty command list for script "<file>"
	ArgsErr                       // statement has too many arguments (maximum is 255): <sql>
)

// ParseError is a script error worded as pgbench words it. Error returns the
// message line pgbench logs after "pgbench: error: "; Detail returns the
// lines pgbench prints after it (the command and a caret), if any.
type ParseError struct {
	Kind     ErrorKind
	File     string
	Line     int    // 1-based line number (SyntaxErr)
	Col      int    // 0-based column of the caret, -1 when none
	Msg      string // e.g. "missing argument"
	More     string // the parenthesised detail, e.g. the offending word
	HasMore  bool
	Cmd      string // the meta command name as written ("in command"), or ""
	LineText string // the command text printed below the message, or ""
	HasLine  bool
	Command  int // 1-based command number (ConditionErr)
}

// Error implements error.
func (e *ParseError) Error() string {
	switch e.Kind {
	case ConditionErr:
		return fmt.Sprintf("condition error in script \"%s\" command %d: %s", e.File, e.Command, e.Msg)
	case EmptyErr:
		return fmt.Sprintf("empty command list for script \"%s\"", e.File)
	case ArgsErr:
		return fmt.Sprintf("statement has too many arguments (maximum is %d): %s", maxArgs-1, e.Msg)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: %s", e.File, e.Line, e.Msg)
	if e.HasMore {
		fmt.Fprintf(&b, " (%s)", e.More)
	}
	if e.Col >= 0 && !e.HasLine {
		fmt.Fprintf(&b, " at column %d", e.Col+1)
	}
	if e.Cmd != "" {
		fmt.Fprintf(&b, " in command \"%s\"", e.Cmd)
	}
	return b.String()
}

// Detail returns what pgbench prints after the error line: the command
// text and, when the column is known, a caret under it ("" when none).
// Each line ends with a newline.
func (e *ParseError) Detail() string {
	if e.Kind != SyntaxErr || !e.HasLine {
		return ""
	}
	s := e.LineText + "\n"
	if e.Col >= 0 {
		s += strings.Repeat(" ", e.Col) + "^ error found here\n"
	}
	return s
}

// Stderr returns the whole text pgbench writes to stderr for this error.
func (e *ParseError) Stderr() string {
	return "pgbench: error: " + e.Error() + "\n" + e.Detail()
}

var metaByName = map[string]MetaKind{
	"set": Set, "setshell": SetShell, "shell": Shell, "sleep": Sleep,
	"if": If, "elif": Elif, "else": Else, "endif": Endif,
	"gset": metaGset, "aset": metaAset,
	"startpipeline": StartPipeline, "syncpipeline": SyncPipeline, "endpipeline": EndPipeline,
}

// parser holds the state of one Parse call.
type parser struct {
	name string
	sc   sqlScanner
	cmds []*Command
}

// Parse parses a pgbench script. name is what pgbench calls the script in
// messages (the file name as given, or a builtin's description). Errors are
// *ParseError, worded like pgbench 15's. Parse also does the checks pgbench
// does when adding a script (empty script, \if nesting).
func Parse(name, text string) (*Script, error) {
	p := &parser{name: name, sc: sqlScanner{src: text}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	s := &Script{Name: name, Desc: name, Weight: 1, Commands: p.cmds, Text: text}
	if len(s.Commands) == 0 {
		return nil, &ParseError{Kind: EmptyErr, File: name, Col: -1}
	}
	if err := resolveConditionals(name, s.Commands); err != nil {
		return nil, err
	}
	return s, nil
}

func (p *parser) parse() error {
	var buf strings.Builder
	for {
		buf.Reset()
		p.sc.compounds = 0
		r := p.sc.scan(&buf)
		if c := newSQLCommand(buf.String(), p.sc.compounds); c != nil {
			p.cmds = append(p.cmds, c)
		}
		if r == scanBackslash {
			start := p.sc.pos - 1
			line := 1 + strings.Count(p.sc.src[:start], "\n")
			c, err := p.backslash(start, line)
			if err != nil {
				return err
			}
			if c != nil {
				if c.Meta == metaGset || c.Meta == metaAset {
					if err := p.attachGset(c, line); err != nil {
						return err
					}
				} else {
					p.cmds = append(p.cmds, c)
				}
			}
		}
		if r == scanEOF {
			return nil
		}
	}
}

func (p *parser) attachGset(c *Command, line int) error {
	e := &ParseError{File: p.name, Line: line, Col: -1, Msg: `\gset must follow an SQL command`}
	if len(p.cmds) == 0 {
		return e
	}
	prev := p.cmds[len(p.cmds)-1]
	if prev.Kind != SQL || prev.Gset != nil {
		// pgbench adds the previous command's first line, which is only
		// known yet for meta commands.
		if prev.Kind == Meta {
			e.More, e.HasMore = prev.First, true
		}
		return e
	}
	g := &Gset{All: c.Meta == metaAset}
	if len(c.Args) > 0 {
		g.Prefix = c.Args[0]
	}
	prev.Gset = g
	return nil
}

// newSQLCommand makes a command of the collected SQL text, or returns nil
// when it holds only whitespace and comments.
func newSQLCommand(text string, compounds int) *Command {
	i := 0
	for {
		if i < len(text) && cscan.IsSpace(text[i]) {
			i++
		} else if strings.HasPrefix(text[i:], "--") {
			j := strings.IndexByte(text[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j + 1
		} else {
			break
		}
	}
	if i >= len(text) {
		return nil
	}
	sql := text[i:]
	first := sql
	if len(first) > 127 {
		first = first[:127]
	}
	if j := strings.IndexAny(first, "\n\r"); j >= 0 {
		first = first[:j]
	}
	c := &Command{Kind: SQL, SQL: sql, First: first, Compound: compounds + 1}
	c.Parts, c.Params, c.ParamSQL = splitVariables(sql)
	return c
}

// splitVariables finds :name references as pgbench's parseVariable does:
// anywhere in the text (quotes are not special), a name starting with a
// letter, '_' or a high-bit byte; other colons are kept as text.
func splitVariables(sql string) (parts []Part, params []string, paramSQL string) {
	var lit, ps strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		if c != ':' {
			lit.WriteByte(c)
			ps.WriteByte(c)
			i++
			continue
		}
		j := i + 1
		if j < len(sql) && isIdentStart(sql[j]) {
			for j < len(sql) && isVarChar(sql[j]) {
				j++
			}
			if lit.Len() > 0 {
				parts = append(parts, Part{Text: lit.String()})
				lit.Reset()
			}
			name := sql[i+1 : j]
			parts = append(parts, Part{Var: name})
			params = append(params, name)
			fmt.Fprintf(&ps, "$%d", len(params))
			i = j
			continue
		}
		for i < len(sql) && sql[i] == ':' {
			lit.WriteByte(':')
			ps.WriteByte(':')
			i++
		}
	}
	if lit.Len() > 0 {
		parts = append(parts, Part{Text: lit.String()})
	}
	return parts, params, ps.String()
}

// CheckParams reports pgbench's error for an SQL command with more
// parameters than the extended and prepared protocols allow (pgbench checks
// it in those modes only).
func (s *Script) CheckParams() error {
	for _, c := range s.Commands {
		if c.Kind == SQL && len(c.Params) > maxArgs-1 {
			return &ParseError{Kind: ArgsErr, File: s.Name, Msg: c.SQL, Col: -1}
		}
	}
	return nil
}

// word is one whitespace-separated word of a meta command.
type word struct {
	text string
	off  int // offset in the script
}

// nextWord lexes one word of a backslash command like exprscan.l's INITIAL
// state. ok is false at the end of the command (the newline is consumed).
func (p *parser) nextWord() (w word, ok bool) {
	src := p.sc.src
	i := p.sc.pos
	for i < len(src) {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '\\' && continuation(src, i) > 0:
			i += continuation(src, i)
		case c == '\n':
			p.sc.pos = i + 1
			return word{}, false
		default:
			start := i
			for i < len(src) && !isExprSpace(src[i]) && src[i] != '\n' {
				i++
			}
			end := i
			// "word\\\n": the continuation is not part of the word
			if end-start >= 2 && src[end-1] == '\\' {
				if n := continuation(src, end-1); n > 0 && src[end-1+n-1] == '\n' {
					p.sc.pos = end - 1 + n
					return word{src[start : end-1], start}, true
				}
			}
			p.sc.pos = end
			return word{src[start:end], start}, true
		}
	}
	p.sc.pos = i
	return word{}, false
}

func isExprSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' }

// continuation returns the length of a line continuation ("\\\n" or
// "\\\r\n") at src[i], or 0.
func continuation(src string, i int) int {
	if i+1 < len(src) && src[i] == '\\' && src[i+1] == '\n' {
		return 2
	}
	if i+2 < len(src) && src[i] == '\\' && src[i+1] == '\r' && src[i+2] == '\n' {
		return 3
	}
	return 0
}

// lineText is pgbench's "first line" of a meta command: from the backslash
// to what was consumed, without trailing newlines.
func (p *parser) lineText(start int) string {
	return strings.TrimRight(p.sc.src[start:p.sc.pos], "\r\n")
}

func (p *parser) backslash(start, line int) (*Command, error) {
	w, ok := p.nextWord()
	if !ok {
		return nil, nil
	}
	c := &Command{Kind: Meta, Line: line, Meta: metaByName[strings.ToLower(w.text)]}
	name := w.text
	synErr := func(msg string, hasLine bool, more *string, col int) error {
		e := &ParseError{File: p.name, Line: line, Col: col, Msg: msg, Cmd: name}
		if hasLine {
			e.LineText, e.HasLine = c.First, true
		}
		if more != nil {
			e.More, e.HasMore = *more, true
		}
		return e
	}

	if c.Meta == Set || c.Meta == If || c.Meta == Elif {
		if c.Meta == Set {
			v, ok := p.nextWord()
			if !ok {
				return nil, synErr("missing argument", false, nil, -1)
			}
			c.Var = v.text
			c.Args = []string{v.text}
		}
		if err := p.parseExpr(c, start, line, name); err != nil {
			return nil, err
		}
		c.First = p.lineText(start)
		return c, nil
	}

	var words []word
	for {
		a, ok := p.nextWord()
		if !ok {
			break
		}
		if len(words)+1 >= maxArgs {
			return nil, synErr("too many arguments", false, nil, -1)
		}
		words = append(words, a)
	}
	c.First = p.lineText(start)
	for _, a := range words {
		c.Args = append(c.Args, a.text)
	}
	argc := len(words) + 1
	switch c.Meta {
	case Sleep:
		if argc < 2 {
			return nil, synErr("missing argument", true, nil, -1)
		}
		if argc > 3 {
			return nil, synErr("too many arguments", true, nil, words[2].off-start)
		}
		arg := words[0].text
		unit := ""
		unitOff := 0
		if argc == 3 {
			unit, unitOff = words[1].text, words[1].off
		}
		if strings.HasPrefix(arg, ":") {
			c.Sleep.Var = arg[1:]
		} else {
			i := 0
			if i < len(arg) && (arg[i] == '+' || arg[i] == '-') {
				i++
			}
			digits := i
			for i < len(arg) && isDigit(arg[i]) {
				i++
			}
			if i < len(arg) {
				if argc == 2 && i > digits {
					unit, unitOff = arg[i:], words[0].off+i
					argc = 3
				} else {
					return nil, synErr("invalid sleep time, must be an integer", true, &arg, words[0].off-start)
				}
			}
			c.Sleep.N = atoi(arg)
		}
		c.Sleep.Unit = 1000000
		if argc == 3 {
			switch strings.ToLower(unit) {
			case "us":
				c.Sleep.Unit = 1
			case "ms":
				c.Sleep.Unit = 1000
			case "s":
			default:
				return nil, synErr("unrecognized time unit, must be us, ms or s", true, &unit, unitOff-start)
			}
		}
	case SetShell:
		if argc < 3 {
			return nil, synErr("missing argument", true, nil, -1)
		}
		c.Var = c.Args[0]
	case Shell:
		if argc < 2 {
			return nil, synErr("missing command", true, nil, -1)
		}
	case Else, Endif, StartPipeline, EndPipeline, SyncPipeline:
		if argc != 1 {
			return nil, synErr("unexpected argument", true, nil, -1)
		}
	case metaGset, metaAset:
		if argc > 2 {
			return nil, synErr("too many arguments", true, nil, -1)
		}
	default:
		return nil, synErr("invalid command", true, nil, -1)
	}
	return c, nil
}

// atoi mimics C's atoi (strtol cast to int) on the leading integer of s.
func atoi(s string) int64 {
	v, _, _ := cscan.Strtol(s)
	return int64(int32(v))
}

// parseExpr parses the expression of \set, \if or \elif: the rest of the
// line, continuation lines included.
func (p *parser) parseExpr(c *Command, start, line int, name string) error {
	src := p.sc.src
	begin := p.sc.pos
	end := begin // end of the logical line (index of its newline, or len)
	for end < len(src) && src[end] != '\n' {
		if n := continuation(src, end); n > 0 {
			end += n
			continue
		}
		end++
	}
	hasNewline := end < len(src)
	// Continuations are whitespace to the expression lexer: blank them out
	// so that offsets stay the same.
	text := blankContinuations(src[begin:end])
	if hasNewline {
		text += "\n"
		p.sc.pos = end + 1
	} else {
		p.sc.pos = end
	}
	x, err := expr.Parse(text)
	if err == nil {
		c.Expr = x
		return nil
	}
	var se *expr.SyntaxError
	if !errors.As(err, &se) {
		return fmt.Errorf("%s:%d: %w", p.name, line, err)
	}
	// expr reports pgbench's column: the last byte of the token where the
	// error was found, the newline at the end, or the last byte at EOF;
	// for an empty expression at EOF that is the byte before it.
	col := se.Col
	if text == "" {
		col = -1
	}
	msg, more, hasMore := se.Msg, se.Near, se.Near != ""
	// pgbench reports its error only after lexing the rest of the line,
	// and any unexpected character found there is reported instead.
	if bad := lastUnexpected(text, col+1); bad >= 0 {
		col, msg, more, hasMore = bad, "unexpected character", text[bad:bad+1], true
	}
	c.First = strings.TrimRight(src[start:p.sc.pos], "\r\n")
	e := &ParseError{File: p.name, Line: line, Col: begin - start + col, Msg: msg, Cmd: name,
		LineText: c.First, HasLine: true}
	e.More, e.HasMore = more, hasMore
	return e
}

func blankContinuations(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if n := continuation(s, i); n > 0 {
			for k := 0; k < n; k++ {
				b[i+k] = ' '
			}
			i += n - 1
		}
	}
	return string(b)
}

// lastUnexpected returns the offset of the last byte in text[from:] that
// pgbench's expression lexer rejects as an unexpected character, or -1.
func lastUnexpected(text string, from int) int {
	bad := -1
	i := from
	if i < 0 {
		i = 0
	}
	for i < len(text) {
		c := text[i]
		switch {
		case isExprSpace(c) || c == '\n':
			i++
		case isDigit(c) || c == '.' && i+1 < len(text) && isDigit(text[i+1]):
			for i < len(text) && isDigit(text[i]) {
				i++
			}
			if i < len(text) && text[i] == '.' {
				i++
				for i < len(text) && isDigit(text[i]) {
					i++
				}
			}
			i = cscan.Exponent(text, i)
		case isIdentStart(c):
			for i < len(text) && isVarChar(text[i]) {
				i++
			}
		case c == ':' && i+1 < len(text) && isVarChar(text[i+1]):
			i++
			for i < len(text) && isVarChar(text[i]) {
				i++
			}
		case c == '!' && i+1 < len(text) && text[i+1] == '=':
			i += 2
		case strings.IndexByte("+-*/%(),<>=&|#~", c) >= 0:
			i++
		default:
			bad = i
			i++
		}
	}
	return bad
}

// resolveConditionals checks \if nesting like pgbench's CheckConditional and
// sets the jump targets.
func resolveConditionals(name string, cmds []*Command) error {
	type frame struct {
		last   int // the \if or \elif whose Else is still to be set
		branch []int
		inElse bool
	}
	var stack []frame
	cond := func(i int, msg string) error {
		return &ParseError{Kind: ConditionErr, File: name, Command: i + 1, Msg: msg, Col: -1}
	}
	for i, c := range cmds {
		if c.Kind != Meta {
			continue
		}
		switch c.Meta {
		case If:
			stack = append(stack, frame{last: i, branch: []int{i}})
		case Elif, Else:
			kw := `\elif`
			if c.Meta == Else {
				kw = `\else`
			}
			if len(stack) == 0 {
				return cond(i, kw+` without matching \if`)
			}
			f := &stack[len(stack)-1]
			if f.inElse {
				return cond(i, kw+` after \else`)
			}
			cmds[f.last].Else = i
			f.last = i
			f.branch = append(f.branch, i)
			if c.Meta == Else {
				f.inElse = true
			}
		case Endif:
			if len(stack) == 0 {
				return cond(i, `\endif without matching \if`)
			}
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			cmds[f.last].Else = i
			for _, b := range f.branch {
				cmds[b].End = i
			}
			c.Else, c.End = i, i
		}
	}
	if len(stack) > 0 {
		return cond(len(cmds), `\if without matching \endif`)
	}
	return nil
}

// Refuse17 returns the error pgbench 15 gives a script that uses what 17
// added, \syncpipeline ("invalid command"), or nil. Parse accepts it, as
// 17 does.
func (s *Script) Refuse17() error {
	for _, c := range s.Commands {
		if c.Kind == Meta && c.Meta == SyncPipeline {
			name, _, _ := strings.Cut(strings.TrimPrefix(c.First, `\`), " ")
			return &ParseError{File: s.Name, Line: c.Line, Col: -1, Msg: "invalid command", Cmd: name,
				LineText: c.First, HasLine: true}
		}
	}
	return nil
}
