package expr

import (
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
)

// strToDouble is pgbench's strtodouble: glibc strtod over the whole string
// (leading white space, sign, decimal or hex floats, inf/infinity,
// nan/nan(...)), failing on trailing text and on ERANGE, which glibc sets
// on overflow and on an inexact result below the smallest normal double.
func strToDouble(s string) (float64, bool) {
	i, neg := cscan.Sign(s)
	body := s[i:]
	lower := strings.ToLower(body)
	switch {
	case lower == "inf" || lower == "infinity":
		if neg {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case strings.HasPrefix(lower, "nan"):
		rest := body[3:]
		if rest != "" {
			if rest[0] != '(' || rest[len(rest)-1] != ')' {
				return 0, false
			}
			for _, c := range []byte(rest[1 : len(rest)-1]) {
				if !(isDigit(c) || c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z')) {
					return 0, false
				}
			}
		}
		bits := uint64(0x7FF8000000000000)
		if neg {
			bits |= 1 << 63
		}
		return math.Float64frombits(bits), true
	}
	hex := len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X')
	if !validFloat(body, hex) {
		return 0, false
	}
	text := body
	if hex && !strings.ContainsAny(body, "pP") {
		text += "p0"
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil {
		// Only a range error is possible here: overflow.
		return 0, false
	}
	if math.Abs(f) < 0x1p-1022 && !exactly(text, f) {
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// validFloat checks the C syntax of an unsigned decimal or (with its 0x
// prefix) hexadecimal floating-point number that must fill all of s.
func validFloat(s string, hex bool) bool {
	i := 0
	digit := isDigit
	if hex {
		i = 2
		digit = func(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
	}
	n := 0
	for i < len(s) && digit(s[i]) {
		i++
		n++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && digit(s[i]) {
			i++
			n++
		}
	}
	if n == 0 {
		return false
	}
	if i == len(s) {
		return true
	}
	if c := s[i] | 0x20; (hex && c == 'p') || (!hex && c == 'e') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i > start && i == len(s)
	}
	return false
}

// exactly reports whether the number written in text equals f exactly.
func exactly(text string, f float64) bool {
	r, ok := new(big.Rat).SetString(text)
	if !ok {
		return false
	}
	return r.Cmp(new(big.Rat).SetFloat64(f)) == 0
}
