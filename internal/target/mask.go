package target

import (
	"net/url"
	"regexp"
)

const maskedPassword = "xxxxx"

var passwordParam = regexp.MustCompile(`(?i)(password=)[^&\s]*`)

// MaskURL returns s with any password replaced by xxxxx, both the user-info
// password of a URL and a password= parameter. Strings that are not URLs
// have password= parameters and anything between "://user:" and "@" masked.
func MaskURL(s string) string {
	u, err := url.Parse(s)
	if err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), maskedPassword)
			s = u.String()
			// url.String escapes nothing in xxxxx; keep the rest as it was.
		}
	} else if err != nil {
		s = userInfoPassword.ReplaceAllString(s, "${1}"+maskedPassword+"@")
	}
	return passwordParam.ReplaceAllString(s, "${1}"+maskedPassword)
}

var userInfoPassword = regexp.MustCompile(`(://[^:/@\s]*:)[^@\s]*@`)
