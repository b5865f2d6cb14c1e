package expr

import (
	"fmt"
	"math"
	"strings"
)

// SyntaxError is a parse error as pgbench reports it: Msg is its message
// ("syntax error", "unexpected function name", "unexpected character",
// "bigint constant overflow", ...), Near the detail pgbench prints in
// parentheses after it (the function name, the character; empty for a
// plain syntax error) and Col the 0-based byte offset in the source where
// pgbench puts its "^ error found here" caret: the last byte of the token
// at which the error was found. At the end of the expression that is the
// offset of its terminating newline when the source includes it, and the
// last byte of the source when it does not (as pgbench at end of file).
type SyntaxError struct {
	Msg  string
	Col  int
	Near string
}

func (e *SyntaxError) Error() string {
	if e.Near != "" {
		return fmt.Sprintf("%s (%s) at column %d", e.Msg, e.Near, e.Col+1)
	}
	return fmt.Sprintf("%s at column %d", e.Msg, e.Col+1)
}

// Expr is a compiled expression, safe to evaluate concurrently with
// different Envs.
type Expr struct {
	src  string
	root node
	vars []string
}

// String returns the source text the expression was parsed from.
func (e *Expr) String() string { return e.src }

// Vars lists the variables the expression reads, in order of first
// appearance, including the implicit :default_seed of one-argument hash
// functions and two-argument permute.
func (e *Expr) Vars() []string { return e.vars }

// Parse compiles src, one expression as it follows "\set name" or "\if".
// The expression ends at the end of src or at its first newline that is
// not escaped by a backslash (pgbench's line continuation); text after that
// newline is ignored, see ParsePrefix.
func Parse(src string) (*Expr, error) {
	e, _, err := ParsePrefix(src)
	return e, err
}

// ParsePrefix is Parse that also returns how many bytes of src the
// expression used, including its terminating newline if any.
func ParsePrefix(src string) (*Expr, int, error) {
	p := &parser{lx: lexer{src: src}}
	root, err := p.parse()
	if err != nil {
		return nil, 0, p.finishLine(err)
	}
	n := p.lx.pos
	text := src[:n]
	text = strings.TrimRight(text, "\n")
	e := &Expr{src: text, root: root}
	seen := map[string]bool{}
	collectVars(root, func(name string) {
		if !seen[name] {
			seen[name] = true
			e.vars = append(e.vars, name)
		}
	})
	return e, n, nil
}

// finishLine lexes the rest of the line after an error, as pgbench does to
// print the whole line; a lexical error found there (an unexpected
// character, a constant overflow) is reported instead, so the last one on
// the line wins.
func (p *parser) finishLine(err error) error {
	for !p.lx.done {
		if _, lerr := p.lx.next(); lerr != nil {
			err = lerr
		}
	}
	return err
}

// Precedence levels, lowest to highest, as exprparse.y declares them.
const (
	lvlOr      = 1
	lvlAnd     = 2
	lvlNot     = 3 // prefix, right
	lvlIs      = 4 // IS, ISNULL, NOTNULL: postfix
	lvlCompare = 5 // nonassoc
	lvlBit     = 6 // | # & << >> and prefix ~, left
	lvlAdd     = 7
	lvlMul     = 8
	lvlUnary   = 9 // prefix + -
)

// maxDepth bounds nesting, as bison's stack does (YYMAXDEPTH 10000) with
// "memory exhausted"; the exact point differs.
const maxDepth = 5000

type parser struct {
	lx    lexer
	tok   token
	depth int
}

// errAt is a syntax error at the current token.
func (p *parser) errAt(msg, near string) *SyntaxError {
	return &SyntaxError{Msg: msg, Near: near, Col: p.tokCol()}
}

// tokCol is where pgbench reports an error found at the current token:
// its last byte, or the last byte of the source at its end.
func (p *parser) tokCol() int {
	t := p.tok
	if t.kind == tEOF && t.end == t.start { // end of source, no newline
		if t.end == 0 {
			return 0
		}
		return t.end - 1
	}
	return t.end - 1
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) parse() (node, error) { return p.exprAfter(tEOF) }

// exprAfter reads past the current token (none yet, "(", WHEN) and parses
// the expression after it, which end must follow.
func (p *parser) exprAfter(end tokKind) (node, error) {
	n, err := p.next(lvlOr)
	if err != nil {
		return nil, err
	}
	return n, p.expect(end)
}

// next reads past the current token (an operator, "(", ",", THEN, ELSE)
// and parses the expression after it whose operators bind at lvl or
// tighter.
func (p *parser) next(lvl int) (node, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	return p.expr(lvl)
}

// expect is a syntax error unless the current token is of kind k.
func (p *parser) expect(k tokKind) error {
	if p.tok.kind != k {
		return p.errAt("syntax error", "")
	}
	return nil
}

func binaryLevel(k tokKind) int {
	switch k {
	case tOr:
		return lvlOr
	case tAnd:
		return lvlAnd
	case tIs, tIsNull, tNotNull:
		return lvlIs
	case tLT, tGT, tEQ, tLE, tGE, tNE:
		return lvlCompare
	case tBitOr, tBitXor, tBitAnd, tLS, tRS:
		return lvlBit
	case tPlus, tMinus:
		return lvlAdd
	case tMul, tDiv, tMod:
		return lvlMul
	}
	return 0
}

// expr parses operators of level min and above (precedence climbing that
// resolves exactly as bison does with exprparse.y's declarations).
func (p *parser) expr(min int) (node, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, p.errAt("memory exhausted", "")
	}
	left, err := p.unary()
	if err != nil {
		return nil, err
	}
	for {
		k := p.tok.kind
		lvl := binaryLevel(k)
		if lvl == 0 || lvl < min {
			return left, nil
		}
		switch k {
		case tIsNull:
			left = &isNode{a: left, want: Value{}}
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		case tNotNull:
			left = &unNode{op: fNot, a: &isNode{a: left, want: Value{}}}
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		case tIs:
			if err := p.advance(); err != nil {
				return nil, err
			}
			not := false
			if p.tok.kind == tNot {
				not = true
				if err := p.advance(); err != nil {
					return nil, err
				}
			}
			var want Value
			switch p.tok.kind {
			case tNull:
			case tBool:
				want = BoolValue(p.tok.b)
			default:
				return nil, p.errAt("syntax error", "")
			}
			left = &isNode{a: left, want: want}
			if not {
				left = &unNode{op: fNot, a: left}
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			continue
		}
		right, err := p.next(lvl + 1)
		if err != nil {
			return nil, err
		}
		switch k {
		case tOr:
			left = &logicNode{a: left, b: right, or: true}
		case tAnd:
			left = &logicNode{a: left, b: right}
		case tGT: // a > b is b < a, evaluated right first
			left = &binNode{op: fLT, a: right, b: left}
		case tGE:
			left = &binNode{op: fLE, a: right, b: left}
		default:
			left = &binNode{op: binaryFunc[k], a: left, b: right}
		}
		if lvl == lvlCompare && binaryLevel(p.tok.kind) == lvlCompare {
			return nil, p.errAt("syntax error", "") // nonassoc
		}
	}
}

var binaryFunc = map[tokKind]fn{
	tPlus: fAdd, tMinus: fSub, tMul: fMul, tDiv: fDiv, tMod: fMod,
	tLT: fLT, tLE: fLE, tEQ: fEQ, tNE: fNE,
	tBitOr: fBitOr, tBitAnd: fBitAnd, tBitXor: fBitXor, tLS: fLShift, tRS: fRShift,
}

// unary parses prefix operators and primaries.
func (p *parser) unary() (node, error) {
	switch p.tok.kind {
	case tPlus:
		return p.next(lvlUnary + 1)
	case tMinus:
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind == tMaxIntPlusOne {
			if err := p.advance(); err != nil {
				return nil, err
			}
			return &constNode{v: IntValue(math.MinInt64)}, nil
		}
		a, err := p.expr(lvlUnary + 1)
		if err != nil {
			return nil, err
		}
		return &binNode{op: fSub, a: &constNode{v: IntValue(0)}, b: a}, nil
	case tBitNot:
		a, err := p.next(lvlBit + 1)
		if err != nil {
			return nil, err
		}
		return &binNode{op: fBitXor, a: &constNode{v: IntValue(-1)}, b: a}, nil
	case tNot:
		a, err := p.next(lvlNot + 1)
		if err != nil {
			return nil, err
		}
		return &unNode{op: fNot, a: a}, nil
	}
	return p.primary()
}

func (p *parser) primary() (node, error) {
	t := p.tok
	var n node
	switch t.kind {
	case tLParen:
		inner, err := p.exprAfter(tRParen)
		if err != nil {
			return nil, err
		}
		n = inner
	case tNull:
		n = &constNode{v: Value{}}
	case tBool:
		n = &constNode{v: BoolValue(t.b)}
	case tInt:
		n = &constNode{v: IntValue(t.i)}
	case tDouble:
		n = &constNode{v: DoubleValue(t.d)}
	case tVar:
		n = &varNode{name: t.text}
	case tFunc:
		return p.call()
	case tCase:
		return p.caseExpr()
	default:
		return nil, p.errAt("syntax error", "")
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return n, nil
}

// call parses "name(args)". Like bison, it looks the name up before reading
// the next token and checks the arguments before reading past ")".
func (p *parser) call() (node, error) {
	name := p.tok.text
	f, ok := funcByName[strings.ToLower(name)]
	if !ok {
		return nil, p.errAt("unexpected function name", name)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expect(tLParen); err != nil {
		return nil, err
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var args []node
	if p.tok.kind != tRParen && p.tok.kind != tComma {
		a, err := p.expr(lvlOr)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	for p.tok.kind == tComma {
		a, err := p.next(lvlOr)
		if err != nil {
			return nil, err
		}
		args = append(args, a)
	}
	if err := p.expect(tRParen); err != nil {
		return nil, err
	}
	n, msg := makeCall(f, args)
	if msg != "" {
		return nil, p.errAt(msg, f.name)
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return n, nil
}

func (p *parser) caseExpr() (node, error) {
	if err := p.advance(); err != nil {
		return nil, err
	}
	c := &caseNode{}
	if err := p.expect(tWhen); err != nil {
		return nil, err
	}
	for p.tok.kind == tWhen {
		w, err := p.exprAfter(tThen)
		if err != nil {
			return nil, err
		}
		t, err := p.next(lvlOr)
		if err != nil {
			return nil, err
		}
		c.whens = append(c.whens, w)
		c.thens = append(c.thens, t)
	}
	c.els = &constNode{}
	if p.tok.kind == tElse {
		e, err := p.next(lvlOr)
		if err != nil {
			return nil, err
		}
		c.els = e
	}
	if err := p.expect(tEnd); err != nil {
		return nil, err
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	return c, nil
}
