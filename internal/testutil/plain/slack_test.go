package plain

import "testing"

func TestLoadFactor(t *testing.T) {
	for _, c := range []struct {
		loadavg string
		cores   int
		want    float64
	}{
		{"0.10 0.20 0.30 1/100 42", 2, 1},
		{"4.00 1.00 1.00 1/100 42", 2, 2},
		{"40.00 1.00 1.00 1/100 42", 2, maxLoadFactor},
		{"", 2, 1},
		{"x", 2, 1},
		{"8.0", 0, 1},
	} {
		if got := loadFactor(c.loadavg, c.cores); got != c.want {
			t.Errorf("loadFactor(%q, %d) = %v, want %v", c.loadavg, c.cores, got, c.want)
		}
	}
}
