package diff

// Metric is one metric of a unit as diff compares it, for a history of
// many units (txnbench history): its name as the tables print it, its
// family and unit, its direction and value, and whether it rests on
// enough samples to be compared (diff's minimums).
type Metric struct {
	Name         string
	Family       Family
	Unit         string
	HigherBetter bool
	Value        float64
	Enough       bool
}

// Metrics are the unit's metrics in report order (the median of its
// repetitions for a study's cell), those diff would compare.
func Metrics(u *Unit) []Metric {
	vs := unitValues(u.Results)
	out := make([]Metric, 0, len(vs))
	for _, v := range vs {
		out = append(out, Metric{Name: v.label(), Family: v.family, Unit: v.unit, HigherBetter: v.higher, Value: v.v, Enough: v.n >= v.min})
	}
	return out
}
