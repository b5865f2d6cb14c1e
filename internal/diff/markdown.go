package diff

import (
	"fmt"
	"io"
	"strings"
)

// WriteMarkdown renders the report as GitHub-flavoured Markdown, for a
// pull request's comment or a CI job's summary: the summary line first,
// what was compared and with which thresholds, then a table per scenario
// (metric, base, new, change, threshold, verdict, a regression in bold)
// with its notes.
func WriteMarkdown(w io.Writer, r *Report) {
	fmt.Fprintf(w, "### txnbench diff: %s\n\n", mdText(Summary(r)))
	fmt.Fprintf(w, "%s `%s` (base) vs `%s` (new). %s\n", r.Kind, r.Base, r.New, mdText(thresholdsText(r)))
	if len(r.Different) > 0 {
		fmt.Fprintf(w, "\n> **Warning:** fixed settings differ, compared anyway (--allow-different): %s\n", mdText(strings.Join(r.Different, "; ")))
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "\n- %s", mdText(n))
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w)
	}
	for _, s := range r.Scenarios {
		fmt.Fprintf(w, "\n#### %s\n", mdText(s.Name))
		if len(s.Decisions) > 0 {
			fmt.Fprint(w, "\n| metric | base | new | change | threshold | verdict |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
			for _, d := range s.Decisions {
				verdict := mdText(verdictText(d))
				if d.Verdict == Worse {
					verdict = "**" + verdict + "**"
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", mdText(d.Metric), format(d.Unit, d.Base), format(d.Unit, d.New), change(d), thresholdText(d), verdict)
			}
		}
		for _, n := range s.Notes {
			fmt.Fprintf(w, "\n- %s", mdText(n))
		}
		if len(s.Notes) > 0 {
			fmt.Fprintln(w)
		}
	}
}

// mdText escapes what Markdown would take for markup in a table cell or a
// line of text: pipes, asterisks, underscores, backticks, angle brackets.
func mdText(s string) string {
	return strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", ">", "&gt;").Replace(s)
}
