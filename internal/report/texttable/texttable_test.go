package texttable

import (
	"bytes"
	"testing"
)

func TestWrite(t *testing.T) {
	rows := [][]string{{"op", "ops/s", "verdict"}, {"add", "12.5", "ok"}, {"process", "1,200.0", "WORSE"}, {"é", "", ""}}
	tests := []struct {
		style Style
		left  []int
		want  string
	}{
		{Plain, []int{0, 2}, "" +
			"op         ops/s  verdict\n" +
			"add         12.5  ok\n" +
			"process  1,200.0  WORSE\n" +
			"é\n"},
		{Markdown, []int{0}, "" +
			"| op      |   ops/s | verdict |\n" +
			"| ------- | ------: | ------: |\n" +
			"| add     |    12.5 |      ok |\n" +
			"| process | 1,200.0 |   WORSE |\n" +
			"| é       |         |         |\n\n"},
	}
	for _, tt := range tests {
		var b bytes.Buffer
		Write(&b, tt.style, rows, tt.left...)
		if b.String() != tt.want {
			t.Errorf("style %d:\n%s\nwant\n%s", tt.style, b.String(), tt.want)
		}
	}
}

// TestEscape: the one Markdown escaping rule: what would end a cell or a
// line, or read as markup, shows as itself (the suite's table escaped
// only pipes and newlines, diff's no newline, study's nothing).
func TestEscape(t *testing.T) {
	got := Escape("a|b *c* _d_ `e` <f>\ng\r\nh")
	if want := `a\|b \*c\* \_d\_ \` + "`e\\`" + ` &lt;f&gt; g h`; got != want {
		t.Errorf("Escape = %q, want %q", got, want)
	}
}
