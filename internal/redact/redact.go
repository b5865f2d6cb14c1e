package redact

import (
	"regexp"
	"strings"
)

const maskedPassword = "xxxxx"

var (
	// userInfoPassword matches the password of every URL in a text: what
	// lies between "scheme://user:" and the last "@" of that word. A password
	// may hold "@" or "/" unescaped (invalid, but it must not leak), so this
	// may mask more than the password, never less.
	userInfoPassword = regexp.MustCompile(`(://[^:/@\s]*:)\S*@`)
	// passwordParam matches a password= parameter of a URL query or a
	// key=value connection string, its value bare or quoted ('...' with
	// backslash escapes or doubled quotes, as libpq and PgBouncer write it,
	// or "...").
	passwordParam = regexp.MustCompile(`(?i)(password[ \t]*=[ \t]*)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|[^&\s]*)`)
)

// URL returns s with every password replaced by xxxxx: the user-info
// password of each URL in s and every password= parameter (of a URL query
// or a key=value connection string, quoted or not). s may be a URL or any
// text containing URLs, such as an error message. Nothing else changes: a
// user name or database name equal to the password stays readable.
func URL(s string) string {
	// Only a text with a pattern's literal can match it: one without, such
	// as a status line, is not searched (the search of a long line
	// allocates tens of kilobytes; issue 40).
	if strings.Contains(s, "://") {
		s = userInfoPassword.ReplaceAllString(s, "${1}"+maskedPassword+"@")
	}
	if strings.Contains(s, "=") {
		s = passwordParam.ReplaceAllString(s, "${1}"+maskedPassword)
	}
	return s
}

// Password returns s with password, a password txnbench was given,
// replaced by xxxxx where it stands as a URL's user-info password or a
// password= value, even in a URL that does not parse (a password with
// spaces, which URL cannot tell from the text around it). Other
// occurrences of the same text, such as a user name, stay as they are.
func Password(s, password string) string {
	if password == "" || !strings.Contains(s, password) {
		return s
	}
	q := regexp.QuoteMeta(password)
	s = regexp.MustCompile(`(://[^:/@\s]*:)`+q+`@`).ReplaceAllString(s, "${1}"+maskedPassword+"@")
	return regexp.MustCompile(`(?i)(password[ \t]*=[ \t]*)`+q).ReplaceAllString(s, "${1}"+maskedPassword)
}
