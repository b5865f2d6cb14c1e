package plain

import "testing"

func TestFirstDiff(t *testing.T) {
	for _, c := range []struct{ got, want, out string }{
		{"a\nb\n", "a\nc\n", "line 2:\n got: b\nwant: c"},
		{"a\n", "a\nb", "line 2:\n got: \nwant: b"},
		{"a", "a", "(no line differs)"},
	} {
		if out := firstDiff(c.got, c.want); out != c.out {
			t.Errorf("firstDiff(%q, %q) = %q, want %q", c.got, c.want, out, c.out)
		}
	}
}
