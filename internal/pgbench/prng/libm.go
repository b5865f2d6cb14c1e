package prng

import "math"

// Exp, Log and Pow are correctly rounded (barring astronomically rare hard
// cases), computed in double-double arithmetic. glibc's exp, log and pow,
// which pgbench uses, are correctly rounded in all but rare cases too,
// while Go's math.Exp/Log are off by an ulp now and then and math.Pow by
// far more for large exponents; pgbench's printed doubles show that.

// dd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) (float64, float64) {
	s := a + b
	bb := s - a
	return s, (a - (s - bb)) + (b - bb)
}

func quickTwoSum(a, b float64) (float64, float64) {
	s := a + b
	return s, b - (s - a)
}

func twoProd(a, b float64) (float64, float64) {
	p := a * b
	return p, math.FMA(a, b, -p)
}

func ddAdd(a, b dd) dd {
	s, e := twoSum(a.hi, b.hi)
	t, f := twoSum(a.lo, b.lo)
	e += t
	s, e = quickTwoSum(s, e)
	e += f
	s, e = quickTwoSum(s, e)
	return dd{s, e}
}

func ddMul(a, b dd) dd {
	p, e := twoProd(a.hi, b.hi)
	e += a.hi*b.lo + a.lo*b.hi
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func ddMulF(a dd, b float64) dd {
	p, e := twoProd(a.hi, b)
	e += a.lo * b
	p, e = quickTwoSum(p, e)
	return dd{p, e}
}

func ddDivF(a dd, b float64) dd {
	q := a.hi / b
	p, e := twoProd(q, b)
	r := (a.hi - p - e + a.lo) / b
	q, r = quickTwoSum(q, r)
	return dd{q, r}
}

// ln 2 as three doubles (about 160 bits).
const (
	ln2hi  = 0.6931471805599453
	ln2mid = 2.3190468138462996e-17
	ln2lo  = 5.707708438416212e-34
)

// kLn2 returns k*ln2 as a double-double, for integer k.
func kLn2(k float64) dd {
	p, e := twoProd(k, ln2hi)
	m, f := twoProd(k, ln2mid)
	r := ddAdd(dd{p, e}, dd{m, f})
	return ddAdd(r, dd{k * ln2lo, 0})
}

// expDD returns exp(x) as (mantissa, k) with value m * 2^k, m near 1.
func expDD(x dd) (dd, int) {
	k := math.Round(x.hi / ln2hi)
	kl := kLn2(k)
	r := ddAdd(x, dd{-kl.hi, -kl.lo})
	const squarings = 8
	r.hi = math.Ldexp(r.hi, -squarings)
	r.lo = math.Ldexp(r.lo, -squarings)
	// Taylor series: |r| < 1.4e-3, terms to r^11/11! are below 2^-110.
	sum := ddAdd(dd{1, 0}, r)
	term := r
	for n := 2.0; n <= 11; n++ {
		term = ddDivF(ddMul(term, r), n)
		sum = ddAdd(sum, term)
	}
	for i := 0; i < squarings; i++ {
		sum = ddMul(sum, sum)
	}
	return sum, int(k)
}

// scale rounds m * 2^k to the nearest double, subnormals included.
func scale(m dd, k int) float64 {
	if k >= -1021 {
		return math.Ldexp(m.hi, k) // m.hi is m rounded; scaling is exact
	}
	// Result below 2^-1021: round in units of 2^-1074 using both parts.
	sh := k + 1074
	if sh < -60 {
		return 0
	}
	u := math.Ldexp(m.hi, sh)
	ul := math.Ldexp(m.lo, sh)
	n := math.RoundToEven(u)
	frac := (u - n) + ul
	switch {
	case frac > 0.5:
		n++
	case frac < -0.5:
		n--
	case frac == 0.5 || frac == -0.5:
		if math.Mod(n, 2) != 0 {
			n += 2 * frac
		}
	}
	return math.Ldexp(n, -1074)
}

// Exp is exp(x) correctly rounded.
func Exp(x float64) float64 {
	switch {
	case x != x:
		return x
	case x > 710:
		return math.Inf(1)
	case x < -746:
		return 0
	}
	m, k := expDD(dd{x, 0})
	return scale(m, k)
}

// logDD returns log(x) as a double-double for finite x > 0.
func logDD(x float64) dd {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	y0 := math.Log(m)
	// One Newton step: log(m) = y0 + log(m*exp(-y0)), m*exp(-y0) = 1+d.
	em, ek := expDD(dd{-y0, 0})
	t := ddMulF(em, m)
	t.hi = math.Ldexp(t.hi, ek)
	t.lo = math.Ldexp(t.lo, ek)
	d := ddAdd(t, dd{-1, 0})
	y := ddAdd(dd{y0, 0}, d)
	y = ddAdd(y, dd{-d.hi * d.hi / 2, 0})
	if e != 0 {
		y = ddAdd(kLn2(float64(e)), y)
	}
	return y
}

// Log is log(x) correctly rounded.
func Log(x float64) float64 {
	switch {
	case x != x || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	case x == 1:
		return 0
	}
	return logDD(x).hi
}

// Pow is pow(x, y) correctly rounded; special cases as C99 (math.Pow).
func Pow(x, y float64) float64 {
	if y == 0 || x == 1 || x != x || y != y || math.IsInf(x, 0) || math.IsInf(y, 0) || x == 0 {
		return math.Pow(x, y)
	}
	neg := false
	if x < 0 {
		yi, yf := math.Modf(y)
		if yf != 0 {
			return math.NaN()
		}
		neg = math.Abs(math.Mod(yi, 2)) == 1
		x = -x
	}
	p := ddMulF(logDD(x), y)
	var r float64
	switch {
	case p.hi > 710:
		r = math.Inf(1)
	case p.hi < -746:
		r = 0
	default:
		m, k := expDD(p)
		r = scale(m, k)
	}
	if neg {
		return -r
	}
	return r
}
