package target

import "regexp"

const maskedPassword = "xxxxx"

var (
	// userInfoPassword matches the password of every URL in a text: what
	// lies between "scheme://user:" and the last "@" of that word. A password
	// may hold "@" or "/" unescaped (invalid, but it must not leak), so this
	// may mask more than the password, never less.
	userInfoPassword = regexp.MustCompile(`(://[^:/@\s]*:)\S*@`)
	passwordParam    = regexp.MustCompile(`(?i)(password=)[^&\s]*`)
)

// MaskURL returns s with every password replaced by xxxxx: the user-info
// password of each URL in s and every password= parameter. s may be a URL
// or any text containing URLs, such as an error message.
func MaskURL(s string) string {
	s = userInfoPassword.ReplaceAllString(s, "${1}"+maskedPassword+"@")
	return passwordParam.ReplaceAllString(s, "${1}"+maskedPassword)
}
