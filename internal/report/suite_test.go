package report

import (
	"testing"

	"github.com/txnbench/txnbench/internal/suite"
)

func TestHeldConstant(t *testing.T) {
	held := heldConstant([]suite.Scenario{
		{Name: "a", Settings: map[string]string{"seed": "42", "clients": "4"}},
		{Name: "failed early"}, // no settings: not counted
		{Name: "b", Settings: map[string]string{"seed": "42", "clients": "8"}},
		{Name: "c", Settings: map[string]string{"seed": "42", "clients": "4", "variant": "text"}},
	})
	if len(held) != 1 || held["seed"] != "42" {
		t.Errorf("held constant %v, want only seed=42", held)
	}
	if heldConstant(nil) != nil {
		t.Error("nothing held constant without scenarios")
	}
}
