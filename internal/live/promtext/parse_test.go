package promtext

import (
	"math"
	"strings"
	"testing"
)

const good = `# HELP a_total Things, with a \\ and a\nsecond line.
# TYPE a_total counter
a_total{op="x\"y\\z\nw",kind="t"} 3
a_total 0
# HELP g A gauge.
# TYPE g gauge
g -1.5e-07
# HELP h_seconds Latency.
# TYPE h_seconds histogram
h_seconds_bucket{op="a",le="0.5"} 1
h_seconds_bucket{op="a",le="1"} 2
h_seconds_bucket{op="a",le="+Inf"} 2
h_seconds_sum{op="a"} 0.75
h_seconds_count{op="a"} 2
# HELP empty A family with no samples yet.
# TYPE empty gauge
`

func TestParseGood(t *testing.T) {
	fams, err := Parse(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 4 {
		t.Fatalf("%d families, want 4", len(fams))
	}
	a := Find(fams, "a_total")
	if a.Help != "Things, with a \\ and a\nsecond line." || a.Type != "counter" {
		t.Errorf("family a: %+v", a)
	}
	if v := a.Samples[0].Label("op"); v != "x\"y\\z\nw" {
		t.Errorf("label op = %q", v)
	}
	if g := Find(fams, "g"); g.Samples[0].Value != -1.5e-07 {
		t.Errorf("gauge = %v", g.Samples[0].Value)
	}
	h := Find(fams, "h_seconds")
	if len(h.Samples) != 5 || !math.IsInf(mustFloat(t, h.Samples[2].Label("le")), 1) {
		t.Errorf("histogram: %+v", h)
	}
}

func mustFloat(t *testing.T, s string) float64 {
	v, err := parseFloat(s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseRejects(t *testing.T) {
	hist := "# HELP h H.\n# TYPE h histogram\n"
	cases := []struct{ name, text, want string }{
		{"no final line feed", "# HELP a A.\n# TYPE a gauge\na 1", "line feed"},
		{"empty line", "# HELP a A.\n\n# TYPE a gauge\n", "empty line"},
		{"help twice", "# HELP a A.\n# TYPE a gauge\n# HELP a A.\n", "second HELP"},
		{"type twice", "# HELP a A.\n# TYPE a gauge\n# TYPE a gauge\n", "TYPE must follow"},
		{"type without help", "# TYPE a gauge\n", "TYPE must follow"},
		{"no type", "# HELP a A.\n", "no TYPE"},
		{"sample before type", "# HELP a A.\na 1\n", "before its family"},
		{"sample of another family", "# HELP a A.\n# TYPE a gauge\nb 1\n", "not of family"},
		{"family split", "# HELP a A.\n# TYPE a gauge\na 1\n# HELP b B.\n# TYPE b gauge\nb 1\n# HELP a A.\n", "second HELP"},
		{"unknown type", "# HELP a A.\n# TYPE a meter\n", "unknown type"},
		{"other comment", "# HELP a A.\n# TYPE a gauge\n# hello\n", "comment"},
		{"bad name", "# HELP 1a A.\n", "bad metric name"},
		{"bad label name", "# HELP a A.\n# TYPE a gauge\na{1x=\"v\"} 1\n", "bad label name"},
		{"reserved label name", "# HELP a A.\n# TYPE a gauge\na{__x=\"v\"} 1\n", "bad label name"},
		{"label twice", "# HELP a A.\n# TYPE a gauge\na{x=\"v\",x=\"w\"} 1\n", "twice"},
		{"unquoted value", "# HELP a A.\n# TYPE a gauge\na{x=v} 1\n", "not quoted"},
		{"bad escape", "# HELP a A.\n# TYPE a gauge\na{x=\"\\t\"} 1\n", "unknown escape"},
		{"unterminated", "# HELP a A.\n# TYPE a gauge\na{x=\"v} 1\n", "unterminated"},
		{"quote escape in help", "# HELP a A \\\" b.\n# TYPE a gauge\n", "not an escape"},
		{"series twice", "# HELP a A.\n# TYPE a gauge\na{x=\"1\",y=\"2\"} 1\na{y=\"2\",x=\"1\"} 1\n", "twice"},
		{"negative counter", "# HELP a A.\n# TYPE a counter\na -1\n", "negative"},
		{"timestamp", "# HELP a A.\n# TYPE a gauge\na 1 1700000000\n", "timestamps"},
		{"two spaces", "# HELP a A.\n# TYPE a gauge\na  1\n", "extra fields"},
		{"not a number", "# HELP a A.\n# TYPE a gauge\na one\n", "not a number"},
		{"lowercase inf", "# HELP a A.\n# TYPE a gauge\na inf\n", "not a number"},
		{"not cumulative", hist + "h_bucket{le=\"1\"} 3\nh_bucket{le=\"2\"} 2\nh_bucket{le=\"+Inf\"} 3\nh_sum 1\nh_count 3\n", "not cumulative"},
		{"bounds not ascending", hist + "h_bucket{le=\"2\"} 1\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 3\nh_sum 1\nh_count 3\n", "not ascending"},
		{"no +Inf", hist + "h_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", "+Inf"},
		{"count differs", hist + "h_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 3\n", "differs"},
		{"no sum", hist + "h_bucket{le=\"+Inf\"} 2\nh_count 2\n", "missing"},
		{"bucket without le", hist + "h_bucket 2\nh_sum 1\nh_count 2\n", "without le"},
		{"fractional bucket", hist + "h_bucket{le=\"+Inf\"} 1.5\nh_sum 1\nh_count 1.5\n", "not whole"},
		{"histogram named plainly", hist + "h 2\n", "not of family"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse(c.text)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse = %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("# HELP a A.\n# TYPE a gauge\na{x=\"\\\\\"} 1\n")
	f.Add("# HELP h H.\n# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 1\nh_count 1\n")
	f.Fuzz(func(t *testing.T, text string) {
		fams, err := Parse(text)
		if err != nil {
			return
		}
		for _, fam := range fams {
			if fam.Type == "" || !validMetricName(fam.Name) {
				t.Fatalf("accepted family %+v", fam)
			}
			for _, s := range fam.Samples {
				if !belongs(&fam, s) {
					t.Fatalf("accepted sample %s in family %s", s.Name, fam.Name)
				}
			}
		}
	})
}
