package mysql

import "testing"

func TestCommitSpelling(t *testing.T) {
	for in, want := range map[string]string{
		"END;":                        "COMMIT",
		" end ":                       " COMMIT",
		"/* txnbench op=x */ END;":    "/* txnbench op=x */ COMMIT",
		"/* a */ /* b */\nEnd":        "/* a */ /* b */\nCOMMIT",
		"ENDS":                        "ENDS",
		"SELECT 'END'":                "SELECT 'END'",
		"/* unterminated END":         "/* unterminated END",
		"/* txnbench op=x */ COMMIT;": "/* txnbench op=x */ COMMIT;",
	} {
		if got := commitSpelling(in); got != want {
			t.Errorf("commitSpelling(%q) = %q, want %q", in, got, want)
		}
	}
}
