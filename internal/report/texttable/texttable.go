package texttable

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Style is how Write draws a table.
type Style int

const (
	// Plain separates the columns by two spaces, without trailing blanks.
	Plain Style = iota
	// Markdown draws a Markdown table: cells between pipes, and under the
	// header a separator line that carries each column's alignment.
	Markdown
)

// markdown escapes, in Markdown text and table cells alike, what Markdown
// would read as markup or as the end of a cell or a line.
var markdown = strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;", "\r\n", " ", "\n", " ")

// Escape is s as Markdown shows it literally, on one line: the one rule
// for text (names, notes, errors) that goes into a Markdown table's cell
// or line; the markup a caller adds around it (backticks, bold, links)
// is its own.
func Escape(s string) string { return markdown.Replace(s) }

// Write writes rows, the first being the header, in aligned columns: the
// columns numbered in left are aligned left, the others right (numbers).
func Write(w io.Writer, style Style, rows [][]string, left ...int) {
	if len(rows) == 0 {
		return
	}
	isLeft := map[int]bool{}
	for _, i := range left {
		isLeft[i] = true
	}
	widths := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	align := func(i int, c string) string {
		pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
		if isLeft[i] {
			return c + pad
		}
		return pad + c
	}
	line := func(row []string) {
		var b strings.Builder
		for i, c := range row {
			switch {
			case style == Markdown:
				if i == 0 {
					b.WriteString("|")
				}
				b.WriteString(" " + align(i, c) + " |")
			case i > 0:
				b.WriteString("  " + align(i, c))
			default:
				b.WriteString(align(i, c))
			}
		}
		if style == Plain {
			fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		} else {
			fmt.Fprintln(w, b.String())
		}
	}
	line(rows[0])
	if style == Markdown {
		sep := make([]string, len(widths))
		for i, n := range widths {
			sep[i] = strings.Repeat("-", max(n, 3))
			if !isLeft[i] {
				sep[i] = sep[i][:len(sep[i])-1] + ":"
			}
		}
		fmt.Fprintln(w, "| "+strings.Join(sep, " | ")+" |")
	}
	for _, row := range rows[1:] {
		line(row)
	}
	if style == Markdown {
		fmt.Fprintln(w) // a Markdown table ends with a blank line
	}
}
