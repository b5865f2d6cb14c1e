package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/result"
)

func TestCheckAdd(t *testing.T) {
	tests := []struct {
		name  string
		items []bool
		ok    bool
	}{
		{"none", nil, false},
		{"one ok", []bool{true}, true},
		{"one failed", []bool{false}, false},
		{"all ok", []bool{true, true, true}, true},
		{"first failed", []bool{false, true, true}, false},
		{"middle failed", []bool{true, false, true}, false},
		{"last failed", []bool{true, true, false}, false},
	}
	for _, tt := range tests {
		var c result.Check
		for i, ok := range tt.items {
			c.Add("item", ok, "%d of %s", i, "x")
		}
		if c.OK != tt.ok || len(c.Items) != len(tt.items) {
			t.Errorf("%s: OK %v with %d items, want %v with %d", tt.name, c.OK, len(c.Items), tt.ok, len(tt.items))
		}
		for i, it := range c.Items {
			if it.OK != tt.items[i] || it.Name != "item" || it.Detail != fmt.Sprintf("%d of x", i) {
				t.Errorf("%s: item %d = %+v", tt.name, i, it)
			}
		}
	}
}

func TestCheckStatusAndMerge(t *testing.T) {
	ok := result.Check{OK: true, Items: []result.CheckItem{{Name: "a", OK: true}}}
	bad := result.Check{Items: []result.CheckItem{{Name: "b"}}}
	none := result.Check{NotChecked: "custom scripts"}
	tests := []struct {
		name       string
		parts      []result.Check
		status     string
		violated   bool
		notChecked string
	}{
		{"ok", []result.Check{ok}, "OK", false, ""},
		{"violated", []result.Check{bad}, "VIOLATED", true, ""},
		{"verified nothing", []result.Check{none}, "not checked (custom scripts)", false, "custom scripts"},
		{"ok and nothing", []result.Check{ok, none}, "not checked (custom scripts)", false, "custom scripts"},
		{"nothing, then a violation", []result.Check{none, bad}, "VIOLATED", true, ""},
		{"a violation, then nothing", []result.Check{bad, none}, "VIOLATED", true, ""},
	}
	for _, tc := range tests {
		m := &result.Check{OK: true}
		for _, p := range tc.parts {
			m.Merge(p)
		}
		if m.Status() != tc.status || m.Violated() != tc.violated || m.NotChecked != tc.notChecked || (m.OK && tc.status != "OK") {
			t.Errorf("%s: %+v: status %q violated %v, want %q %v", tc.name, m, m.Status(), m.Violated(), tc.status, tc.violated)
		}
	}
	var nilCheck *result.Check
	if nilCheck.Status() != "not checked" || nilCheck.Violated() {
		t.Error("a nil check is not \"not checked\"")
	}
}

func TestUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tests := []struct{ lo, hi time.Duration }{
		{0, 0}, {5, 5}, {10 * time.Millisecond, 50 * time.Millisecond}, {0, 3}, {7, 2},
	}
	for _, tt := range tests {
		seen := map[time.Duration]bool{}
		for i := 0; i < 2000; i++ {
			d := Uniform(r, tt.lo, tt.hi)
			if tt.hi <= tt.lo {
				if d != tt.lo {
					t.Fatalf("Uniform(%v, %v) = %v, want %v", tt.lo, tt.hi, d, tt.lo)
				}
				continue
			}
			if d < tt.lo || d > tt.hi {
				t.Fatalf("Uniform(%v, %v) = %v out of range", tt.lo, tt.hi, d)
			}
			seen[d] = true
		}
		// A small range is covered end to end, both bounds included.
		if tt.hi > tt.lo && tt.hi-tt.lo < 10 && len(seen) != int(tt.hi-tt.lo)+1 {
			t.Errorf("Uniform(%v, %v) took %d distinct values, want %d", tt.lo, tt.hi, len(seen), tt.hi-tt.lo+1)
		}
	}
}

func TestRegistry(t *testing.T) {
	defer func(saved map[string]Def) { registry = saved }(registry)
	registry = map[string]Def{}
	Register(Def{Name: "b-load", Summary: "b"})
	Register(Def{Name: "a-load", Summary: "a"})
	if got := strings.Join(Names(), ","); got != "a-load,b-load" {
		t.Errorf("Names() = %s", got)
	}
	if d, err := Lookup("a-load"); err != nil || d.Summary != "a" {
		t.Errorf("Lookup(a-load) = %+v, %v", d, err)
	}
	_, err := Lookup("nope")
	if err == nil || !strings.Contains(err.Error(), `"nope"`) || !strings.Contains(err.Error(), "a-load, b-load") {
		t.Errorf("Lookup(nope) = %v; want an error naming it and the choices", err)
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a name twice did not panic")
		}
	}()
	Register(Def{Name: "a-load"})
}
