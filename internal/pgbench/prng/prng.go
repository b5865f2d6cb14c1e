package prng

import (
	"math"
	"math/bits"
)

// State is one pg_prng_state: the two 64-bit words of xoroshiro128**.
// The zero State is not usable; seed it with Seed first.
type State struct {
	s0, s1 uint64
}

func splitmix64(state *uint64) uint64 {
	*state += 0x9E3779B97F4A7C15
	v := *state
	v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
	v = (v ^ (v >> 27)) * 0x94D049BB133111EB
	return v ^ (v >> 31)
}

// Seed initialises the state from a 64-bit seed as pg_prng_seed does:
// two splitmix64 outputs, replaced by fixed non-zero words in the (never
// observed) case that both are zero.
func (s *State) Seed(seed uint64) {
	s.s0 = splitmix64(&seed)
	s.s1 = splitmix64(&seed)
	if s.s0 == 0 && s.s1 == 0 {
		s.s0 = 0x5851F42D4C957F2D
		s.s1 = 0x14057B7EF767814F
	}
}

// Uint64 returns the next 64 random bits (pg_prng_uint64).
func (s *State) Uint64() uint64 {
	s0 := s.s0
	sx := s.s1 ^ s0
	val := bits.RotateLeft64(s0*5, 7) * 9
	s.s0 = bits.RotateLeft64(s0, 24) ^ sx ^ (sx << 16)
	s.s1 = bits.RotateLeft64(sx, 37)
	return val
}

// Uint64Range returns a uniform value in [lo, hi] by bitmask rejection
// (pg_prng_uint64_range); an empty range gives lo without drawing.
func (s *State) Uint64Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	r := hi - lo
	shift := uint(bits.LeadingZeros64(r))
	for {
		v := s.Uint64() >> shift
		if v <= r {
			return lo + v
		}
	}
}

// Int64Range returns a uniform value in [lo, hi]; hi-lo must not overflow.
// It draws exactly as pgbench's getrand.
func (s *State) Int64Range(lo, hi int64) int64 {
	return lo + int64(s.Uint64Range(0, uint64(hi-lo)))
}

// Double returns a uniform value in [0, 1) with 52 random bits
// (pg_prng_double).
func (s *State) Double() float64 {
	return float64(s.Uint64()>>12) * (1.0 / (1 << 52))
}

// Rand is pgbench's getrand: uniform in [min, max]. The caller checks, as
// pgbench does, that max-min+1 does not overflow.
func (s *State) Rand(min, max int64) int64 {
	return s.Int64Range(min, max)
}

// Exponential is pgbench's getExponentialRand; param must be > 0.
func (s *State) Exponential(min, max int64, param float64) int64 {
	cut := Exp(-param)
	uniform := 1.0 - s.Double()
	r := -Log(cut+(1.0-cut)*uniform) / param
	return min + int64(float64(max-min+1)*r)
}

// Gaussian is pgbench's getGaussianRand (Box-Muller, redrawn until within
// [-param, param)); param must be >= 2.
func (s *State) Gaussian(min, max int64, param float64) int64 {
	var stdev float64
	for {
		u1 := 1.0 - s.Double()
		u2 := 1.0 - s.Double()
		stdev = math.Sqrt(-2.0*Log(u1)) * math.Sin(2.0*math.Pi*u2)
		if !(stdev < -param || stdev >= param) {
			break
		}
	}
	r := (stdev + param) / (param * 2.0)
	return min + int64(float64(max-min+1)*r)
}

// Zipfian is pgbench's getZipfianRand: Devroye's rejection method, valid
// (and checked by pgbench) for 1.001 <= param <= 1000.
func (s *State) Zipfian(min, max int64, param float64) int64 {
	return min - 1 + s.iterativeZipfian(max-min+1, param)
}

func (s *State) iterativeZipfian(n int64, p float64) int64 {
	if n <= 1 {
		return 1
	}
	b := Pow(2.0, p-1.0)
	var x float64
	for {
		u := s.Double()
		v := s.Double()
		x = math.Floor(Pow(u, -1.0/(p-1.0)))
		t := Pow(1.0+1.0/x, p-1.0)
		if v*x*(t-1.0)/(b-1.0) <= t/b && x <= float64(n) {
			break
		}
	}
	return int64(x)
}

// Poisson is pgbench's getPoissonRand (used for --rate schedules): a value
// whose series averages center.
func (s *State) Poisson(center float64) int64 {
	uniform := 1.0 - s.Double()
	return int64(-Log(uniform)*center + 0.5)
}

const (
	fnvPrime       = 0x100000001b3
	fnvOffsetBasis = 0xcbf29ce484222325
	mm2Mul         = 0xc6a4a7935bd1e995
	mm2MulTimes8   = 0x35253c9ade8f4ca8
	mm2Rot         = 47
)

// HashFNV1a is pgbench's hash_fnv1a(val, seed).
func HashFNV1a(val int64, seed uint64) int64 {
	result := uint64(fnvOffsetBasis) ^ seed
	for i := 0; i < 8; i++ {
		octet := uint64(val & 0xff)
		val >>= 8
		result ^= octet
		result *= fnvPrime
	}
	return int64(result)
}

// HashMurmur2 is pgbench's hash_murmur2(val, seed), also plain hash().
func HashMurmur2(val int64, seed uint64) int64 {
	result := seed ^ mm2MulTimes8
	k := uint64(val)
	k *= mm2Mul
	k ^= k >> mm2Rot
	k *= mm2Mul
	result ^= k
	result *= mm2Mul
	result ^= result >> mm2Rot
	result *= mm2Mul
	result ^= result >> mm2Rot
	return int64(result)
}

// Permute is pgbench's permute(val, size, seed): a pseudorandom
// permutation of [0, size) chosen by seed. A size below 2 gives 0; pgbench
// rejects size <= 0 before calling it.
func Permute(val, isize, seed int64) int64 {
	if isize < 2 {
		return 0
	}
	var st State
	st.Seed(uint64(seed))
	size := uint64(isize)
	v := uint64(val) % size
	masklen := uint(63 - bits.LeadingZeros64(size))
	mask := uint64(1)<<masklen - 1
	for i := 0; i < 6; i++ {
		m := (st.Uint64() & mask) | 1
		r := st.Uint64() & mask
		if v <= mask {
			v = ((v * m) ^ r) & mask
			v = ((v << 1) & mask) | (v >> (masklen - 1))
		}
		m = (st.Uint64() & mask) | 1
		r = st.Uint64() & mask
		t := size - 1 - v
		if t <= mask {
			t = ((t * m) ^ r) & mask
			t = ((t << 1) & mask) | (t >> (masklen - 1))
			v = size - 1 - t
		}
		r = st.Uint64Range(0, size-1)
		v = (v + r) % size
	}
	return int64(v)
}
