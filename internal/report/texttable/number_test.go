package texttable

import (
	"math"
	"testing"
)

// TestNumbers: counts are whole with separators, latencies under 1 ms keep
// three significant digits (a 4 us SELECT is not 0.00), a spread of one
// repetition and an unmeasured value are "-".
func TestNumbers(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{Count(int64(13570)), "13,570"},
		{Count(190.0), "190"},
		{Count(16.5), "17"},
		{Count(0), "0"},
		{Fixed(13570.514, 2), "13,570.51"},
		{Fixed(-1234567.5, 1), "-1,234,567.5"},
		{Fixed(-0.001, 1), "0.0"},
		{Fixed(math.NaN(), 2), "-"},
		{MS(1234.5678), "1,234.57"},
		{MS(1), "1.00"},
		{MS(0.5), "0.500"},
		{MS(0.00432), "0.00432"},
		{MS(0.0000432), "0.0000432"},
		{MS(0), "0.00"},
		{Spread(12.4, 3), "12%"},
		{Spread(0, 1), "-"},
		{Ratio(2.345), "2.35x"},
		{Ratio(0.0093), "0.0093x"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

func TestFixed(t *testing.T) {
	tests := []struct {
		v    float64
		prec int
		want string
	}{
		{0, 0, "0"},
		{0, 2, "0.00"},
		{7, 1, "7.0"},
		{999, 0, "999"},
		{1000, 0, "1,000"},
		{999.999, 2, "1,000.00"},
		{12345, 0, "12,345"},
		{123456, 1, "123,456.0"},
		{1234567.891, 2, "1,234,567.89"},
		{1234567.891, 0, "1,234,568"},
		{1e9, 0, "1,000,000,000"},
		{-1, 0, "-1"},
		{-999, 0, "-999"},
		{-1000, 0, "-1,000"},
		{-1234.5, 1, "-1,234.5"},
		{-1234567.891, 2, "-1,234,567.89"},
		{0.125, 2, "0.13"},
	}
	for _, tc := range tests {
		if got := Fixed(tc.v, tc.prec); got != tc.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", tc.v, tc.prec, got, tc.want)
		}
	}
	intTests := []struct {
		n    int64
		want string
	}{{0, "0"}, {100, "100"}, {4800, "4,800"}, {-52000, "-52,000"}}
	for _, tc := range intTests {
		if got := Count(tc.n); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
