package live

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
)

// family writes a metric family's HELP and TYPE lines.
func family(b *bytes.Buffer, name, typ, help string) {
	b.WriteString("# HELP " + name + " " + escapeHelp(help) + "\n")
	b.WriteString("# TYPE " + name + " " + typ + "\n")
}

// sample writes one sample line; labels are name, value pairs.
func sample(b *bytes.Buffer, name string, labels []string, value string) {
	b.WriteString(name)
	if len(labels) > 0 {
		b.WriteByte('{')
		for i := 0; i+1 < len(labels); i += 2 {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(labels[i] + `="` + escapeLabel(labels[i+1]) + `"`)
		}
		b.WriteByte('}')
	}
	b.WriteString(" " + value + "\n")
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

// escapeLabel escapes a label value: backslash, double quote and line
// feed; bytes that are not UTF-8 become U+FFFD, as the format wants UTF-8.
func escapeLabel(s string) string { return labelEscaper.Replace(strings.ToValidUTF8(s, "\uFFFD")) }

// escapeHelp escapes a HELP text: backslash and line feed.
func escapeHelp(s string) string { return helpEscaper.Replace(strings.ToValidUTF8(s, "\uFFFD")) }

// formatFloat writes a sample value as Go (and Prometheus) parse it.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// formatBound writes a bucket bound in seconds without an exponent.
func formatBound(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
}
