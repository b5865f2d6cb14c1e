package errclass

import (
	"errors"
	"fmt"
	"testing"
)

func TestFirstLine(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"boom", "w: boom"},
		{"ERROR: relation \"x\" does not exist\nDETAIL: d\nHINT: h", `w: ERROR: relation "x" does not exist`},
		{"\nafter", "w: "},
	} {
		if got := FirstLine(fmt.Errorf("w: %w", errors.New(c.err))); got != c.want {
			t.Errorf("FirstLine(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, c := range All {
		want := c == Serialization || c == Deadlock || c == Busy
		if c.Retryable() != want {
			t.Errorf("%s: retryable %v, want %v", c, c.Retryable(), want)
		}
	}
}
