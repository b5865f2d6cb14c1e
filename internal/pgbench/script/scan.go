package script

import (
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
)

// This file splits a script the way pgbench's psqlscan.l-based loop does
// (PostgreSQL 15, standard_conforming_strings on, SQL_ASCII): SQL text is
// collected until a semicolon outside quotes, comments, parentheses and
// CREATE FUNCTION ... BEGIN ATOMIC bodies, or until a backslash that starts
// a meta command. Whitespace and "--" comments before a command are
// dropped; "\;" and "\:" put a literal ';' or ':' into the command.

type scanResult uint8

const (
	scanEOF scanResult = iota
	scanSemi
	scanBackslash
)

type lexState uint8

const (
	stInitial lexState = iota
	stXB               // bit string b'..'
	stXC               // /* comment */
	stXD               // "identifier"
	stXH               // hex string x'..'
	stXQ               // standard '..' string
	stXQS              // after a closing quote, looking for a continuation
	stXE               // E'..' string with backslash escapes
	stXDolq            // $tag$..$tag$
	stXUI              // U&"..."
	stXUS              // U&'...'
)

type sqlScanner struct {
	src   string
	pos   int
	state lexState

	parenDepth, beginDepth, xcDepth int
	dolq                            string
	beforeStrStop                   lexState
	identCount                      int
	idents                          [4]byte
	compounds                       int // "\;" seen in the current command
}

func isSQLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func isIdentStart(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '_' || c >= 0x80
}

func isIdentCont(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' || c == '$' }

func isVarChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isOpChar(c byte) bool { return strings.IndexByte("~!@#^&|`?+-*/%<>=", c) >= 0 }

func (s *sqlScanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// scan appends SQL text to buf until a command-ending semicolon (included),
// a backslash (consumed, not included) or the end of the input.
func (s *sqlScanner) scan(buf *strings.Builder) scanResult {
	for s.pos < len(s.src) {
		switch s.state {
		case stXC:
			s.scanComment(buf)
		case stXB, stXH:
			if s.src[s.pos] == '\'' {
				s.closeQuote(buf)
			} else {
				s.emitWhile(buf, func(c byte) bool { return c != '\'' })
			}
		case stXQ, stXUS:
			if s.src[s.pos] == '\'' {
				if s.at(s.pos+1) == '\'' {
					buf.WriteString("''")
					s.pos += 2
				} else {
					s.closeQuote(buf)
				}
			} else {
				s.emitWhile(buf, func(c byte) bool { return c != '\'' })
			}
		case stXE:
			switch c := s.src[s.pos]; {
			case c == '\'' && s.at(s.pos+1) == '\'':
				buf.WriteString("''")
				s.pos += 2
			case c == '\'':
				s.closeQuote(buf)
			case c == '\\':
				// any escape consumes at least the next byte; longer
				// escapes only contain bytes that are plain inside.
				n := 2
				if s.pos+1 >= len(s.src) {
					n = 1
				}
				buf.WriteString(s.src[s.pos : s.pos+n])
				s.pos += n
			default:
				s.emitWhile(buf, func(c byte) bool { return c != '\'' && c != '\\' })
			}
		case stXQS:
			s.scanQuoteStop(buf)
		case stXDolq:
			s.scanDolq(buf)
		case stXD, stXUI:
			if s.src[s.pos] == '"' {
				if s.at(s.pos+1) == '"' {
					buf.WriteString(`""`)
					s.pos += 2
				} else {
					buf.WriteByte('"')
					s.pos++
					s.state = stInitial
				}
			} else {
				s.emitWhile(buf, func(c byte) bool { return c != '"' })
			}
		default:
			if r, done := s.scanInitial(buf); done {
				return r
			}
		}
	}
	if s.state == stXQS {
		s.state = stInitial
	}
	return scanEOF
}

func (s *sqlScanner) emitWhile(buf *strings.Builder, ok func(byte) bool) {
	start := s.pos
	for s.pos < len(s.src) && ok(s.src[s.pos]) {
		s.pos++
	}
	buf.WriteString(s.src[start:s.pos])
}

func (s *sqlScanner) closeQuote(buf *strings.Builder) {
	buf.WriteByte('\'')
	s.pos++
	s.beforeStrStop = s.state
	s.state = stXQS
}

// scanQuoteStop looks for a string continuation: whitespace containing a
// newline, then a quote.
func (s *sqlScanner) scanQuoteStop(buf *strings.Builder) {
	i := s.pos
	// {horiz_whitespace}*
	for {
		if i < len(s.src) && (s.src[i] == ' ' || s.src[i] == '\t' || s.src[i] == '\f') {
			i++
		} else if strings.HasPrefix(s.src[i:], "--") {
			i = skipToNewline(s.src, i)
		} else {
			break
		}
	}
	if i < len(s.src) && (s.src[i] == '\n' || s.src[i] == '\r') {
		i++
		// {special_whitespace}*: spaces, or a comment followed by a newline
		for {
			if i < len(s.src) && isSQLSpace(s.src[i]) {
				i++
			} else if strings.HasPrefix(s.src[i:], "--") {
				j := skipToNewline(s.src, i)
				if j < len(s.src) {
					i = j + 1
				} else {
					break
				}
			} else {
				break
			}
		}
		if i < len(s.src) && s.src[i] == '\'' {
			buf.WriteString(s.src[s.pos : i+1])
			s.pos = i + 1
			s.state = s.beforeStrStop
			return
		}
	}
	s.state = stInitial
}

func skipToNewline(src string, i int) int {
	for i < len(src) && src[i] != '\n' && src[i] != '\r' {
		i++
	}
	return i
}

func (s *sqlScanner) scanComment(buf *strings.Builder) {
	switch {
	case strings.HasPrefix(s.src[s.pos:], "/*"):
		s.xcDepth++
		buf.WriteString("/*")
		s.pos += 2
	case s.src[s.pos] == '*':
		start := s.pos
		for s.pos < len(s.src) && s.src[s.pos] == '*' {
			s.pos++
		}
		if s.at(s.pos) == '/' {
			s.pos++
			if s.xcDepth <= 0 {
				s.state = stInitial
			} else {
				s.xcDepth--
			}
		}
		buf.WriteString(s.src[start:s.pos])
	case s.src[s.pos] == '/':
		buf.WriteByte('/')
		s.pos++
	default:
		s.emitWhile(buf, func(c byte) bool { return c != '*' && c != '/' })
	}
}

func (s *sqlScanner) scanDolq(buf *strings.Builder) {
	if s.src[s.pos] != '$' {
		s.emitWhile(buf, func(c byte) bool { return c != '$' })
		return
	}
	if d := dolqDelim(s.src[s.pos:]); d != "" {
		if d == s.dolq {
			buf.WriteString(d)
			s.pos += len(d)
			s.state = stInitial
			s.dolq = ""
			return
		}
		// put back the final '$', it may start the real delimiter
		buf.WriteString(d[:len(d)-1])
		s.pos += len(d) - 1
		return
	}
	// {dolqfailed} or a lone '$'
	i := s.pos + 1
	for i < len(s.src) && isVarChar(s.src[i]) {
		i++
	}
	buf.WriteString(s.src[s.pos:i])
	s.pos = i
}

// dolqDelim returns the $tag$ delimiter at the start of t, or "".
func dolqDelim(t string) string {
	if len(t) < 2 || t[0] != '$' {
		return ""
	}
	if t[1] == '$' {
		return "$$"
	}
	if !isIdentStart(t[1]) {
		return ""
	}
	i := 2
	for i < len(t) && isVarChar(t[i]) {
		i++
	}
	if i < len(t) && t[i] == '$' {
		return t[:i+1]
	}
	return ""
}

// scanInitial handles one token in the INITIAL state; done reports that the
// scan call must return r.
func (s *sqlScanner) scanInitial(buf *strings.Builder) (r scanResult, done bool) {
	src, p := s.src, s.pos
	c := src[p]
	switch {
	case isSQLSpace(c):
		i := p
		for i < len(src) && isSQLSpace(src[i]) {
			i++
		}
		if buf.Len() > 0 {
			buf.WriteString(src[p:i])
		}
		s.pos = i
	case c == '-' && s.at(p+1) == '-':
		// a comment is whitespace: dropped before a command, kept inside
		// (pgbench 15; older versions dropped them all)
		i := skipToNewline(src, p)
		if buf.Len() > 0 {
			buf.WriteString(src[p:i])
		}
		s.pos = i
	case c == '/' && s.at(p+1) == '*':
		s.xcDepth = 0
		s.state = stXC
		buf.WriteString("/*")
		s.pos += 2
	case (c == 'b' || c == 'B' || c == 'x' || c == 'X' || c == 'e' || c == 'E') && s.at(p+1) == '\'':
		buf.WriteString(src[p : p+2])
		s.pos += 2
		switch c {
		case 'b', 'B':
			s.state = stXB
		case 'x', 'X':
			s.state = stXH
		default:
			s.state = stXE
		}
	case (c == 'n' || c == 'N') && s.at(p+1) == '\'':
		buf.WriteByte(c) // the quote starts a plain string next
		s.pos++
	case (c == 'u' || c == 'U') && s.at(p+1) == '&':
		switch s.at(p + 2) {
		case '\'':
			s.state = stXUS
			buf.WriteString(src[p : p+3])
			s.pos += 3
		case '"':
			s.state = stXUI
			buf.WriteString(src[p : p+3])
			s.pos += 3
		default:
			buf.WriteByte(c)
			s.pos++
		}
	case c == '\'':
		s.state = stXQ
		buf.WriteByte('\'')
		s.pos++
	case c == '"':
		s.state = stXD
		buf.WriteByte('"')
		s.pos++
	case c == '$':
		if d := dolqDelim(src[p:]); d != "" {
			s.dolq = d
			s.state = stXDolq
			buf.WriteString(d)
			s.pos += len(d)
		} else if isDigit(s.at(p + 1)) { // $n parameter
			i := p + 1
			for i < len(src) && isDigit(src[i]) {
				i++
			}
			buf.WriteString(src[p:i])
			s.pos = i
		} else {
			buf.WriteByte('$')
			s.pos++
		}
	case c == '(':
		s.parenDepth++
		buf.WriteByte(c)
		s.pos++
	case c == ')':
		if s.parenDepth > 0 {
			s.parenDepth--
		}
		buf.WriteByte(c)
		s.pos++
	case c == ';':
		buf.WriteByte(c)
		s.pos++
		if s.parenDepth == 0 && s.beginDepth == 0 {
			s.identCount = 0
			return scanSemi, true
		}
	case c == '\\':
		if n := s.at(p + 1); n == ';' || n == ':' {
			buf.WriteByte(n)
			s.pos += 2
			if n == ';' {
				s.identCount = 0
				s.compounds++
			}
			return 0, false
		}
		s.pos++
		return scanBackslash, true
	case c == ':':
		s.scanColon(buf)
	case isOpChar(c):
		s.scanOperator(buf)
	case isDigit(c) || c == '.' && isDigit(s.at(p+1)):
		s.scanNumber(buf)
	case isIdentStart(c):
		i := p + 1
		for i < len(src) && isIdentCont(src[i]) {
			i++
		}
		s.identifier(src[p:i])
		buf.WriteString(src[p:i])
		s.pos = i
	default:
		buf.WriteByte(c)
		s.pos++
	}
	return 0, false
}

// scanColon handles psql variable syntax (kept verbatim, since pgbench gives
// psqlscan no variables) and "::"/":=".
func (s *sqlScanner) scanColon(buf *strings.Builder) {
	src, p := s.src, s.pos
	n := s.at(p + 1)
	switch {
	case isVarChar(n):
		i := p + 1
		for i < len(src) && isVarChar(src[i]) {
			i++
		}
		buf.WriteString(src[p:i])
		s.pos = i
		return
	case n == '\'' || n == '"':
		i := p + 2
		for i < len(src) && isVarChar(src[i]) {
			i++
		}
		if i > p+2 && s.at(i) == n {
			buf.WriteString(src[p : i+1])
			s.pos = i + 1
			return
		}
	case n == '{' && s.at(p+2) == '?':
		i := p + 3
		for i < len(src) && isVarChar(src[i]) {
			i++
		}
		if i > p+3 && s.at(i) == '}' {
			// psqlscan's :{?name} test: no variables, so FALSE
			buf.WriteString("FALSE")
			s.pos = i + 1
			return
		}
	case n == ':' || n == '=':
		buf.WriteString(src[p : p+2])
		s.pos += 2
		return
	}
	buf.WriteByte(':')
	s.pos++
}

// scanOperator consumes an operator, stopping before an embedded comment
// start, like psqlscan's {operator} rule.
func (s *sqlScanner) scanOperator(buf *strings.Builder) {
	src, p := s.src, s.pos
	i := p
	for i < len(src) && isOpChar(src[i]) {
		i++
	}
	tok := src[p:i]
	n := len(tok)
	if k := strings.Index(tok, "/*"); k >= 0 {
		n = k
	}
	if k := strings.Index(tok, "--"); k >= 0 && k < n {
		n = k
	}
	if n == 0 { // cannot happen: handled before
		n = 1
	}
	if n > 1 && (tok[n-1] == '+' || tok[n-1] == '-') {
		if !strings.ContainsAny(tok[:n-1], "~!@#^&|`?%") {
			for n > 1 && (tok[n-1] == '+' || tok[n-1] == '-') {
				n--
			}
		}
	}
	buf.WriteString(tok[:n])
	s.pos = p + n
}

func (s *sqlScanner) scanNumber(buf *strings.Builder) {
	src, i := s.src, s.pos
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i < len(src) && src[i] == '.' && s.at(i+1) != '.' {
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	i = cscan.Exponent(src, i)
	buf.WriteString(src[s.pos:i])
	s.pos = i
}

// identifier tracks CREATE [OR REPLACE] FUNCTION|PROCEDURE ... BEGIN ... END
// so that semicolons inside the body do not end the command.
func (s *sqlScanner) identifier(word string) {
	if s.identCount == 0 {
		s.idents = [4]byte{}
	}
	lw := strings.ToLower(word)
	switch lw {
	case "create", "function", "procedure", "or", "replace":
		if s.identCount < len(s.idents) {
			s.idents[s.identCount] = lw[0]
		}
	}
	s.identCount++
	id := s.idents
	if id[0] == 'c' && (id[1] == 'f' || id[1] == 'p' || id[1] == 'o' && id[2] == 'r' && (id[3] == 'f' || id[3] == 'p')) &&
		s.parenDepth == 0 {
		switch lw {
		case "begin":
			s.beginDepth++
		case "case":
			if s.beginDepth >= 1 {
				s.beginDepth++
			}
		case "end":
			if s.beginDepth > 0 {
				s.beginDepth--
			}
		}
	}
}
