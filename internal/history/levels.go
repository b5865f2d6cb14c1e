package history

import (
	"fmt"
	"strings"
)

// Level is an isolation level, as Adya (1999) defines it by the phenomena
// it proscribes, and snapshot isolation beside them. Which Level an
// engine's named level promises is the caller's to say (PostgreSQL's
// REPEATABLE READ is SnapshotIsolation; MariaDB's is weaker than
// RepeatableRead: Hermitage).
type Level string

const (
	ReadUncommitted    Level = "read-uncommitted"    // PL-1
	ReadCommitted      Level = "read-committed"      // PL-2
	RepeatableRead     Level = "repeatable-read"     // PL-2.99
	SnapshotIsolation  Level = "snapshot-isolation"  // PL-SI
	Serializable       Level = "serializable"        // PL-3
	StrictSerializable Level = "strict-serializable" // PL-3 and real time
)

// Levels is every Level, weakest first.
var Levels = []Level{ReadUncommitted, ReadCommitted, RepeatableRead, SnapshotIsolation, Serializable, StrictSerializable}

// proscribed is what each level rules out. Sources: Adya, "Weak
// Consistency" (MIT PhD thesis, 1999), chapters 3-4 (PL-1 proscribes G0;
// PL-2 also G1a, G1b, G1c; PL-2.99 also G2-item; PL-3 also G2, which on
// histories of single keys, without predicates, is G2-item); PL-SI
// (chapter 4.3) proscribes G1 and G-SI, whose G-SIb is G-single, and so
// allows G2-item (write skew), though only a cycle with two consecutive rw
// edges (Fekete et al., "Making Snapshot Isolation Serializable", TODS
// 2005: G-nonadjacent, a cycle whose rw edges never touch, is not SI, as
// Elle's table of models has it too); Berenson et al., "A Critique of ANSI SQL
// Isolation Levels" (SIGMOD 1995): snapshot isolation rules out lost
// update (P4), which repeatable read (PL-2.99) rules out as a G2-item
// cycle. One order of each list holds at every level from read committed
// up (a read-uncommitted read may see an aborted append and so an order
// that never was). Internal consistency (a txn's reads of a key agree with
// each other and its own writes) holds from repeatable read up, as Elle
// has it: at read committed a second read of a key may see what another
// txn committed since the first (a fuzzy read, P2). Order edges (process,
// real time) are promised only by strict serializability.
var proscribed = map[Level][]Class{
	ReadUncommitted:    {G0},
	ReadCommitted:      {G0, G1a, G1b, G1c, IncompatibleOrder},
	RepeatableRead:     {G0, G1a, G1b, G1c, GSingle, G2Item, GNonadjacent, LostUpdate, Internal, IncompatibleOrder},
	SnapshotIsolation:  {G0, G1a, G1b, G1c, GSingle, GNonadjacent, LostUpdate, Internal, IncompatibleOrder},
	Serializable:       {G0, G1a, G1b, G1c, GSingle, G2Item, GNonadjacent, LostUpdate, Internal, IncompatibleOrder},
	StrictSerializable: {G0, G1a, G1b, G1c, GSingle, G2Item, GNonadjacent, LostUpdate, Internal, IncompatibleOrder},
}

// ParseLevel reads a Level by its name.
func ParseLevel(s string) (Level, error) {
	for _, l := range Levels {
		if string(l) == s {
			return l, nil
		}
	}
	names := make([]string, len(Levels))
	for i, l := range Levels {
		names[i] = string(l)
	}
	return "", fmt.Errorf("unknown isolation level %q: give one of %s", s, strings.Join(names, ", "))
}

// Proscribes says whether level rules out class c: a finding of c is then
// a violation of the level; else it is allowed there. A class found
// through order edges ("G-single-realtime") is ruled out only by
// StrictSerializable (of its base class).
func (l Level) Proscribes(c Class) bool {
	base, ordered := strings.CutSuffix(string(c), "-realtime")
	if !ordered {
		base, ordered = strings.CutSuffix(string(c), "-process")
	}
	if ordered && l != StrictSerializable {
		return false
	}
	for _, p := range proscribed[l] {
		if string(p) == base {
			return true
		}
	}
	return false
}

// Split divides r's anomalies into those level allows and those it
// proscribes (the violations).
func (r Result) Split(level Level) (allowed, violations []Anomaly) {
	for _, a := range r.Anomalies {
		if level.Proscribes(a.Class) {
			violations = append(violations, a)
		} else {
			allowed = append(allowed, a)
		}
	}
	return allowed, violations
}

// Summary is the verdict in one line: "none in N transactions" or
// "G2-item 12, lost-update 3 in N transactions".
func (r Result) Summary() string {
	if len(r.Anomalies) == 0 {
		return fmt.Sprintf("none in %d transactions", r.Txns)
	}
	parts := make([]string, len(r.Anomalies))
	for i, a := range r.Anomalies {
		parts[i] = fmt.Sprintf("%s %d", a.Class, a.Count)
	}
	return strings.Join(parts, ", ") + fmt.Sprintf(" in %d transactions", r.Txns)
}
