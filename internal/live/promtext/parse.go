package promtext

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Family is one metric family: its HELP, TYPE and samples.
type Family struct {
	Name, Type, Help string
	Samples          []Sample
}

// Sample is one sample line.
type Sample struct {
	Name   string
	Labels []Label // in the order written
	Value  float64
}

// Label is one label pair.
type Label struct{ Name, Value string }

// Label returns the value of the named label, "" when absent.
func (s Sample) Label(name string) string {
	for _, l := range s.Labels {
		if l.Name == name {
			return l.Value
		}
	}
	return ""
}

// Find returns the named family, or nil.
func Find(fams []Family, name string) *Family {
	for i := range fams {
		if fams[i].Name == name {
			return &fams[i]
		}
	}
	return nil
}

// Parse reads an exposition strictly. Beyond the syntax it requires: every
// family has one HELP and one TYPE line before its samples, which are
// contiguous and carry names of that family; no series twice; no label
// name twice in a sample; counters and histogram counts are not negative;
// each histogram series has buckets with ascending bounds and
// non-decreasing counts ending with le="+Inf", whose count equals _count,
// and a _sum. Timestamps are refused (live writes none).
func Parse(text string) ([]Family, error) {
	if text == "" {
		return nil, nil
	}
	if !strings.HasSuffix(text, "\n") {
		return nil, errors.New("the last line does not end with a line feed")
	}
	if !utf8.ValidString(text) {
		return nil, errors.New("not UTF-8")
	}
	var fams []Family
	seen := map[string]bool{}   // families declared
	series := map[string]bool{} // name + labels
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for n, line := range lines {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d %q: %s", n+1, line, fmt.Sprintf(format, args...))
		}
		var cur *Family
		if len(fams) > 0 {
			cur = &fams[len(fams)-1]
		}
		switch {
		case line == "":
			return nil, fail("empty line")
		case strings.HasPrefix(line, "# HELP "):
			name, help, ok := strings.Cut(line[len("# HELP "):], " ")
			if !ok {
				return nil, fail("HELP without text")
			}
			if !validMetricName(name) {
				return nil, fail("bad metric name %q", name)
			}
			if seen[name] {
				return nil, fail("second HELP of %s, or its family is not contiguous", name)
			}
			text, err := unescape(help, false)
			if err != nil {
				return nil, fail("%v", err)
			}
			seen[name] = true
			fams = append(fams, Family{Name: name, Help: text})
		case strings.HasPrefix(line, "# TYPE "):
			f := strings.Split(line[len("# TYPE "):], " ")
			if len(f) != 2 {
				return nil, fail("want # TYPE NAME TYPE")
			}
			if cur == nil || cur.Name != f[0] || cur.Type != "" || len(cur.Samples) > 0 {
				return nil, fail("TYPE must follow its family's HELP, once, before the samples")
			}
			switch f[1] {
			case "counter", "gauge", "histogram", "summary", "untyped":
			default:
				return nil, fail("unknown type %q", f[1])
			}
			cur.Type = f[1]
		case strings.HasPrefix(line, "#"):
			return nil, fail("a comment other than HELP or TYPE")
		default:
			s, err := parseSample(line)
			if err != nil {
				return nil, fail("%v", err)
			}
			if cur == nil || cur.Type == "" {
				return nil, fail("sample before its family's HELP and TYPE")
			}
			if !belongs(cur, s) {
				return nil, fail("sample %s is not of family %s (%s)", s.Name, cur.Name, cur.Type)
			}
			key := seriesKey(s)
			if series[key] {
				return nil, fail("series written twice")
			}
			series[key] = true
			if (cur.Type == "counter" || cur.Type == "histogram" && s.Name != cur.Name+"_sum") && (s.Value < 0 || math.IsNaN(s.Value)) {
				return nil, fail("negative or NaN count")
			}
			cur.Samples = append(cur.Samples, s)
		}
	}
	for _, f := range fams {
		if f.Type == "" {
			return nil, fmt.Errorf("family %s has no TYPE", f.Name)
		}
		if f.Type == "histogram" {
			if err := checkHistogram(f); err != nil {
				return nil, fmt.Errorf("histogram %s: %w", f.Name, err)
			}
		}
	}
	return fams, nil
}

func belongs(f *Family, s Sample) bool {
	switch f.Type {
	case "histogram":
		return s.Name == f.Name+"_bucket" || s.Name == f.Name+"_sum" || s.Name == f.Name+"_count"
	case "summary":
		return s.Name == f.Name || s.Name == f.Name+"_sum" || s.Name == f.Name+"_count"
	}
	return s.Name == f.Name
}

func seriesKey(s Sample) string {
	ls := slices.Clone(s.Labels)
	slices.SortFunc(ls, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	var b strings.Builder
	b.WriteString(s.Name)
	for _, l := range ls {
		b.WriteString("\x00" + l.Name + "\x00" + l.Value)
	}
	return b.String()
}

// checkHistogram checks every series of a histogram family.
func checkHistogram(f Family) error {
	type series struct {
		bounds, counts []float64
		sum, count     *float64
	}
	byKey := map[string]*series{}
	var order []string
	for _, s := range f.Samples {
		rest := Sample{Name: f.Name}
		le := ""
		hasLe := false
		for _, l := range s.Labels {
			if l.Name == "le" {
				le, hasLe = l.Value, true
				continue
			}
			rest.Labels = append(rest.Labels, l)
		}
		key := seriesKey(rest)
		h := byKey[key]
		if h == nil {
			h = &series{}
			byKey[key] = h
			order = append(order, key)
		}
		v := s.Value
		switch s.Name {
		case f.Name + "_bucket":
			if !hasLe {
				return fmt.Errorf("a bucket without le: %v", s.Labels)
			}
			bound, err := parseFloat(le)
			if err != nil || math.IsNaN(bound) {
				return fmt.Errorf("bucket bound le=%q is not a number", le)
			}
			if n := len(h.bounds); n > 0 && bound <= h.bounds[n-1] {
				return fmt.Errorf("bucket bounds not ascending at le=%q", le)
			}
			if n := len(h.counts); n > 0 && v < h.counts[n-1] {
				return fmt.Errorf("bucket counts not cumulative at le=%q: %g after %g", le, v, h.counts[n-1])
			}
			if v != math.Trunc(v) {
				return fmt.Errorf("bucket count %g is not whole", v)
			}
			h.bounds = append(h.bounds, bound)
			h.counts = append(h.counts, v)
		case f.Name + "_sum":
			if hasLe {
				return errors.New("_sum with le")
			}
			h.sum = &v
		case f.Name + "_count":
			if hasLe {
				return errors.New("_count with le")
			}
			h.count = &v
		}
	}
	for _, key := range order {
		h := byKey[key]
		name := strings.ReplaceAll(key, "\x00", " ")
		switch {
		case len(h.bounds) == 0:
			return fmt.Errorf("%s: no buckets", name)
		case !math.IsInf(h.bounds[len(h.bounds)-1], 1):
			return fmt.Errorf("%s: the last bucket is not le=\"+Inf\"", name)
		case h.count == nil || h.sum == nil:
			return fmt.Errorf("%s: _count or _sum missing", name)
		case *h.count != h.counts[len(h.counts)-1]:
			return fmt.Errorf("%s: _count %g differs from the +Inf bucket %g", name, *h.count, h.counts[len(h.counts)-1])
		}
	}
	return nil
}

// parseSample reads NAME[{LABELS}] VALUE.
func parseSample(line string) (Sample, error) {
	var s Sample
	i := 0
	for i < len(line) && line[i] != '{' && line[i] != ' ' {
		i++
	}
	s.Name = line[:i]
	if !validMetricName(s.Name) {
		return s, fmt.Errorf("bad metric name %q", s.Name)
	}
	if i < len(line) && line[i] == '{' {
		i++
		names := map[string]bool{}
		for {
			if i < len(line) && line[i] == '}' {
				i++
				break
			}
			j := i
			for j < len(line) && line[j] != '=' {
				j++
			}
			name := line[i:j]
			if !validLabelName(name) {
				return s, fmt.Errorf("bad label name %q", name)
			}
			if names[name] {
				return s, fmt.Errorf("label %s twice", name)
			}
			names[name] = true
			if j+1 >= len(line) || line[j+1] != '"' {
				return s, fmt.Errorf("label %s: value not quoted", name)
			}
			k := j + 2
			for k < len(line) && line[k] != '"' {
				if line[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(line) {
				return s, fmt.Errorf("label %s: unterminated value", name)
			}
			value, err := unescape(line[j+2:k], true)
			if err != nil {
				return s, fmt.Errorf("label %s: %v", name, err)
			}
			s.Labels = append(s.Labels, Label{name, value})
			i = k + 1
			if i < len(line) && line[i] == ',' {
				i++
				continue
			}
			if i < len(line) && line[i] == '}' {
				i++
				break
			}
			return s, fmt.Errorf("label %s: want , or } after the value", name)
		}
	}
	if i >= len(line) || line[i] != ' ' {
		return s, errors.New("want one space before the value")
	}
	value := line[i+1:]
	if strings.Contains(value, " ") {
		return s, errors.New("extra fields after the value (timestamps are not written)")
	}
	v, err := parseFloat(value)
	if err != nil {
		return s, err
	}
	s.Value = v
	return s, nil
}

// parseFloat reads a sample value: a Go float, +Inf, -Inf or NaN.
func parseFloat(s string) (float64, error) {
	switch s {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	if s == "" || strings.ContainsAny(s, "_xXpP") || strings.EqualFold(strings.TrimLeft(s, "+-"), "inf") ||
		strings.EqualFold(strings.TrimLeft(s, "+-"), "infinity") || strings.EqualFold(s, "nan") {
		return 0, fmt.Errorf("value %q is not a number as the format writes one", s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("value %q is not a number", s)
	}
	return v, nil
}

// unescape undoes the format's escapes: \\ and \n, and in label values \".
func unescape(s string, label bool) (string, error) {
	if !strings.Contains(s, `\`) && !(label && strings.Contains(s, `"`)) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '"' && label {
			return "", errors.New(`unescaped "`)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(s) {
			return "", errors.New(`a lone \ at the end`)
		}
		i++
		switch s[i] {
		case '\\':
			b.WriteByte('\\')
		case 'n':
			b.WriteByte('\n')
		case '"':
			if !label {
				return "", errors.New(`\" is not an escape in HELP`)
			}
			b.WriteByte('"')
		default:
			return "", fmt.Errorf(`unknown escape \%c`, s[i])
		}
	}
	return b.String(), nil
}

func validMetricName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func validLabelName(s string) bool {
	if s == "" || strings.HasPrefix(s, "__") {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
