package job

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestStageFailingStopsTheOnesBefore: a start stage that fails leaves the
// stages started before it stopped, in reverse order, and starts none
// after it; each stop runs once.
func TestStageFailingStopsTheOnesBefore(t *testing.T) {
	var log []string
	ok := func(name string) stage {
		return stage{name, func(rn *running) error {
			log = append(log, "start "+name)
			rn.stops.push(func() { log = append(log, "stop "+name) })
			return nil
		}}
	}
	refused := errors.New("refused")
	saved := stages
	t.Cleanup(func() { stages = saved })
	stages = []stage{ok("a"), ok("b"), {"c", func(*running) error { log = append(log, "start c"); return refused }}, ok("d")}
	rn := &running{ctx: context.Background()}
	if _, err := rn.measure(); !errors.Is(err, refused) {
		t.Fatalf("measure: %v, want the failing stage's error", err)
	}
	want := []string{"start a", "start b", "start c", "stop b", "stop a"}
	if !slices.Equal(log, want) {
		t.Errorf("stages ran %q, want %q", log, want)
	}
	rn.stops.unwind() // already unwound: nothing runs twice
	if !slices.Equal(log, want) {
		t.Errorf("after a second unwind %q, want %q", log, want)
	}
}
