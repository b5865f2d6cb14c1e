package cscan

import "math"

// IsSpace reports whether c is white space to C's isspace in the C locale.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// Sign skips the white space at the start of s and then one '+' or '-': it
// returns the index after them and whether the sign was '-'.
func Sign(s string) (i int, neg bool) {
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	return i, neg
}

// Digits reads the decimal digits of s from index i: their value, whether
// it overflowed uint64 (the value then holds the digits before the one that
// overflowed), and the index after the last digit (i when there is none).
func Digits(s string, i int) (u uint64, over bool, end int) {
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if over || u > (^uint64(0)-d)/10 {
			over = true
			continue
		}
		u = u*10 + d
	}
	return u, over, i
}

// Exponent reads the exponent of a number in s at index i: 'e' or 'E', an
// optional sign and at least one digit. It returns the index after it, or
// i when there is none (an 'e' without digits is not the number's: flex's
// longest match leaves it to what follows).
func Exponent(s string, i int) int {
	if i >= len(s) || (s[i] != 'e' && s[i] != 'E') {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if j >= len(s) || s[j] < '0' || s[j] > '9' {
		return i
	}
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	return j
}

// Strtol is C's strtol(s, &end, 10): leading white space, a sign and
// decimal digits. It returns their value, saturated at the int64 bounds
// on overflow (erange then set, as strtol sets ERANGE), and the index
// after the digits: 0 when there are none, as strtol leaves end at s.
func Strtol(s string) (v int64, end int, erange bool) {
	start, neg := Sign(s)
	u, over, end := Digits(s, start)
	switch {
	case end == start:
		return 0, 0, false
	case over || (!neg && u > math.MaxInt64) || (neg && u > 1<<63):
		if neg {
			return math.MinInt64, end, true
		}
		return math.MaxInt64, end, true
	case neg:
		return int64(-u), end, false
	}
	return int64(u), end, false
}
