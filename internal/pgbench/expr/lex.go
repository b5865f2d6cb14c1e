package expr

import (
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tInt
	tMaxIntPlusOne // 9223372036854775808, valid only after a unary minus
	tDouble
	tBool
	tNull
	tVar
	tFunc
	tAnd
	tOr
	tNot
	tIs
	tIsNull
	tNotNull
	tCase
	tWhen
	tThen
	tElse
	tEnd
	tNE
	tLE
	tGE
	tLS
	tRS
	tPlus
	tMinus
	tMul
	tDiv
	tMod
	tLParen
	tRParen
	tComma
	tLT
	tGT
	tEQ
	tBitOr
	tBitAnd
	tBitXor
	tBitNot
)

type token struct {
	kind       tokKind
	start, end int // byte offsets in the source
	i          int64
	d          float64
	b          bool
	text       string // variable or function name
}

var keywords = map[string]tokKind{
	"and": tAnd, "or": tOr, "not": tNot, "is": tIs, "isnull": tIsNull,
	"notnull": tNotNull, "case": tCase, "when": tWhen, "then": tThen,
	"else": tElse, "end": tEnd, "true": tBool, "false": tBool, "null": tNull,
}

// isAlpha and isAlnum are exprscan.l's {alpha} and {alnum}: ASCII letters,
// underscore and every byte with the high bit set (and digits for alnum).
func isAlpha(c byte) bool {
	return c >= 0x80 || c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'
}

// lexer scans tokens like exprscan.l's EXPR state. An unescaped newline,
// like the end of the source, ends the expression.
type lexer struct {
	src string
	pos int
	// done is set once the end token (newline or end of source) is lexed.
	done bool
}

// continuation reports the length of a backslash-newline at p, or 0.
func (l *lexer) continuation(p int) int {
	s := l.src[p:]
	if strings.HasPrefix(s, "\\\n") {
		return 2
	}
	if strings.HasPrefix(s, "\\\r\n") {
		return 3
	}
	return 0
}

// next lexes one token; a lexical error is returned as a *SyntaxError.
func (l *lexer) next() (token, *SyntaxError) {
	for {
		if l.pos >= len(l.src) {
			l.done = true
			return token{kind: tEOF, start: len(l.src), end: len(l.src)}, nil
		}
		c := l.src[l.pos]
		if isSpace(c) {
			l.pos++
			continue
		}
		if n := l.continuation(l.pos); n > 0 {
			l.pos += n
			continue
		}
		break
	}
	start := l.pos
	s := l.src
	c := s[start]
	tok := func(k tokKind, n int) (token, *SyntaxError) {
		l.pos = start + n
		return token{kind: k, start: start, end: start + n}, nil
	}
	if c == '\n' {
		l.done = true
		return tok(tEOF, 1)
	}
	if start+1 < len(s) {
		switch s[start : start+2] {
		case "<>", "!=":
			return tok(tNE, 2)
		case "<=":
			return tok(tLE, 2)
		case ">=":
			return tok(tGE, 2)
		case "<<":
			return tok(tLS, 2)
		case ">>":
			return tok(tRS, 2)
		}
	}
	switch c {
	case '+':
		return tok(tPlus, 1)
	case '-':
		return tok(tMinus, 1)
	case '*':
		return tok(tMul, 1)
	case '/':
		return tok(tDiv, 1)
	case '%':
		return tok(tMod, 1)
	case '=':
		return tok(tEQ, 1)
	case '<':
		return tok(tLT, 1)
	case '>':
		return tok(tGT, 1)
	case '|':
		return tok(tBitOr, 1)
	case '&':
		return tok(tBitAnd, 1)
	case '#':
		return tok(tBitXor, 1)
	case '~':
		return tok(tBitNot, 1)
	case '(':
		return tok(tLParen, 1)
	case ')':
		return tok(tRParen, 1)
	case ',':
		return tok(tComma, 1)
	case ':':
		p := start + 1
		for p < len(s) && isAlnum(s[p]) {
			p++
		}
		if p > start+1 {
			l.pos = p
			return token{kind: tVar, start: start, end: p, text: s[start+1 : p]}, nil
		}
	}
	if isDigit(c) || (c == '.' && start+1 < len(s) && isDigit(s[start+1])) {
		return l.number(start)
	}
	if isAlpha(c) {
		p := start + 1
		for p < len(s) && isAlnum(s[p]) {
			p++
		}
		l.pos = p
		word := s[start:p]
		if k, ok := keywords[strings.ToLower(word)]; ok && len(word) <= 7 {
			t := token{kind: k, start: start, end: p}
			if k == tBool {
				t.b = len(word) == 4 // "true"; "false" has 5 letters
			}
			return t, nil
		}
		return token{kind: tFunc, start: start, end: p, text: word}, nil
	}
	l.pos = start + 1
	return token{}, &SyntaxError{Msg: "unexpected character", Near: s[start : start+1], Col: start}
}

// number lexes {digit}+, the special 9223372036854775808, and the two
// double forms, keeping flex's longest match.
func (l *lexer) number(start int) (token, *SyntaxError) {
	s := l.src
	p := start
	for p < len(s) && isDigit(s[p]) {
		p++
	}
	intEnd := p
	isDouble := false
	if p < len(s) && s[p] == '.' {
		p++
		for p < len(s) && isDigit(s[p]) {
			p++
		}
		isDouble = true
	}
	if e := cscan.Exponent(s, p); e > p {
		p, isDouble = e, true
	}
	l.pos = p
	text := s[start:p]
	if !isDouble {
		p = intEnd
		if text == "9223372036854775808" {
			return token{kind: tMaxIntPlusOne, start: start, end: p}, nil
		}
		v, ok, _ := strToInt64(text)
		if !ok {
			return token{}, &SyntaxError{Msg: "bigint constant overflow", Near: text, Col: p - 1}
		}
		return token{kind: tInt, start: start, end: p, i: v}, nil
	}
	d, ok := strToDouble(text)
	if !ok {
		return token{}, &SyntaxError{Msg: "double constant overflow", Near: text, Col: p - 1}
	}
	return token{kind: tDouble, start: start, end: p, d: d}, nil
}
