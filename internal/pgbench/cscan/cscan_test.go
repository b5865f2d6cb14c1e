package cscan

import "testing"

func TestSignDigits(t *testing.T) {
	for _, tc := range []struct {
		s         string
		neg, over bool
		u         uint64
		start     int
		end       int
	}{
		{s: " \t-12x", neg: true, u: 12, start: 3, end: 5},
		{s: "+", start: 1, end: 1},
		{s: "18446744073709551615", u: 1<<64 - 1, end: 20},
		{s: "18446744073709551616", over: true, u: 1844674407370955161, end: 20},
		{s: "\v\f\r\n 7", u: 7, start: 5, end: 6},
	} {
		start, neg := Sign(tc.s)
		u, over, end := Digits(tc.s, start)
		if start != tc.start || neg != tc.neg || u != tc.u || over != tc.over || end != tc.end {
			t.Errorf("%q: start %d neg %v, digits %d over %v end %d; want %d %v, %d %v %d",
				tc.s, start, neg, u, over, end, tc.start, tc.neg, tc.u, tc.over, tc.end)
		}
	}
}

func TestExponent(t *testing.T) {
	for _, tc := range []struct {
		s       string
		i, want int
	}{
		{"1e5", 1, 3},
		{"1E+12x", 1, 5},
		{"1e-0", 1, 4},
		{"1e", 1, 1},
		{"1e+", 1, 1},
		{"1ex", 1, 1},
		{"12", 2, 2},
		{"1.5", 1, 1},
	} {
		if got := Exponent(tc.s, tc.i); got != tc.want {
			t.Errorf("Exponent(%q, %d) = %d, want %d", tc.s, tc.i, got, tc.want)
		}
	}
}

func TestStrtol(t *testing.T) {
	for _, tc := range []struct {
		s      string
		v      int64
		end    int
		erange bool
	}{
		{s: " 42x", v: 42, end: 3},
		{s: "-7", v: -7, end: 2},
		{s: " +", end: 0},
		{s: "", end: 0},
		{s: "9223372036854775807", v: 1<<63 - 1, end: 19},
		{s: "9223372036854775808", v: 1<<63 - 1, end: 19, erange: true},
		{s: "-9223372036854775808", v: -1 << 63, end: 20},
		{s: "-9223372036854775809 ", v: -1 << 63, end: 20, erange: true},
		{s: "99999999999999999999999", v: 1<<63 - 1, end: 23, erange: true},
	} {
		v, end, erange := Strtol(tc.s)
		if v != tc.v || end != tc.end || erange != tc.erange {
			t.Errorf("Strtol(%q) = %d, %d, %v; want %d, %d, %v", tc.s, v, end, erange, tc.v, tc.end, tc.erange)
		}
	}
}
