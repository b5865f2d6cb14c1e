package prng

import (
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"time"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
)

// SeedError is ParseSeed's error for an argument pgbench rejects. Error
// gives pgbench's error line, Detail its detail line.
type SeedError struct{ Arg string }

func (e *SeedError) Error() string {
	return fmt.Sprintf("unrecognized random seed option \"%s\"", e.Arg)
}

// Detail is the hint pgbench prints after the error.
func (e *SeedError) Detail() string {
	return `Expecting an unsigned integer, "time" or "rand".`
}

// ParseSeed interprets a --random-seed argument as pgbench's
// set_random_seed does: "time" (microseconds of the current time), "rand"
// (a strong random value) or an unsigned integer read like sscanf's %lu
// (leading white space and a sign allowed, "-1" wraps to 2^64-1, an
// overflow saturates, nothing may follow the digits).
func ParseSeed(arg string) (uint64, error) {
	switch arg {
	case "time":
		return uint64(time.Now().UnixMicro()), nil
	case "rand":
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return 0, fmt.Errorf("could not generate random seed: %w", err)
		}
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	v, ok := scanUint64(arg)
	if !ok {
		return 0, &SeedError{Arg: arg}
	}
	return v, nil
}

// scanUint64 follows glibc's sscanf("%lu%c") == 1.
func scanUint64(s string) (uint64, bool) {
	start, neg := cscan.Sign(s)
	v, overflow, i := cscan.Digits(s, start)
	if i == start || i != len(s) {
		return 0, false
	}
	if overflow {
		return ^uint64(0), true
	}
	if neg {
		v = -v
	}
	return v, true
}

// NewBase returns pgbench's base_random_sequence for a --random-seed value.
func NewBase(seed uint64) *State {
	var s State
	s.Seed(seed)
	return &s
}

// Seeds are the seeds pgbench derives from --random-seed, in its order.
type Seeds struct {
	// RandomSeed is the :random_seed variable (the seed as a bigint).
	RandomSeed int64
	// Client[i] seeds client i's random state (cs_func_rs), which the
	// expression functions random*() draw from.
	Client []uint64
	// DefaultSeed is the :default_seed variable, hash()'s default seed.
	DefaultSeed int64
	// Choose, Throttle and Sample seed each thread's script choice,
	// --rate schedule and --sampling-rate states.
	Choose, Throttle, Sample []uint64
}

// Derive computes Seeds as pgbench's main() draws them from
// base_random_sequence: one seed per client first, then default_seed, then
// for each thread its choose, throttle and sample seeds.
func Derive(seed uint64, clients, threads int) Seeds {
	return DeriveDefined(seed, clients, threads, false)
}

// DeriveDefined is Derive for a run where -D defines default_seed: pgbench
// then does not draw default_seed, which shifts the threads' seeds.
// DefaultSeed is left zero.
func DeriveDefined(seed uint64, clients, threads int, defaultSeedDefined bool) Seeds {
	base := NewBase(seed)
	s := Seeds{
		RandomSeed: int64(seed),
		Client:     make([]uint64, clients),
		Choose:     make([]uint64, threads),
		Throttle:   make([]uint64, threads),
		Sample:     make([]uint64, threads),
	}
	for i := range s.Client {
		s.Client[i] = base.Uint64()
	}
	if !defaultSeedDefined {
		s.DefaultSeed = int64(base.Uint64())
	}
	for i := 0; i < threads; i++ {
		s.Choose[i] = base.Uint64()
		s.Throttle[i] = base.Uint64()
		s.Sample[i] = base.Uint64()
	}
	return s
}

// NewState returns a State seeded with seed, e.g. a client's state from
// Seeds.Client[i].
func NewState(seed uint64) *State {
	var s State
	s.Seed(seed)
	return &s
}
