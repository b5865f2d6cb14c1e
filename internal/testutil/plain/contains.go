package plain

import (
	"strings"
	"testing"
)

// Contains fails t for each of wants that text does not hold, naming
// what (the text checked, e.g. "stdout") and quoting text once.
func Contains(t testing.TB, what, text string, wants ...string) {
	t.Helper()
	var missing []string
	for _, w := range wants {
		if !strings.Contains(text, w) {
			missing = append(missing, w)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s lacks %q:\n%s", what, missing, text)
	}
}

// Lacks fails t for each of unwanted that text holds.
func Lacks(t testing.TB, what, text string, unwanted ...string) {
	t.Helper()
	var found []string
	for _, w := range unwanted {
		if strings.Contains(text, w) {
			found = append(found, w)
		}
	}
	if len(found) > 0 {
		t.Errorf("%s holds %q, which it should not:\n%s", what, found, text)
	}
}

// Squeeze is s with each run of spaces made one, so that a padded
// Markdown table's row reads as its cells do: "| a | 10 |" for
// "| a    |   10 |".
func Squeeze(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r == ' ' && i > 0 && s[i-1] == ' ' {
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
