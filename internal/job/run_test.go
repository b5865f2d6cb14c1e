package job

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
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

// TestArchitectureNamesStages: docs/ARCHITECTURE.md's run diagram names
// every stage of Run, in the order Run goes through them; a stage added,
// renamed or moved without the diagram fails here.
func TestArchitectureNamesStages(t *testing.T) {
	doc, err := os.ReadFile("../../docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	_, diagram, _ := strings.Cut(string(doc), "## A run, end to end\n\n```\n")
	diagram, _, _ = strings.Cut(diagram, "```")
	want := []string{"init"}
	for _, st := range stages {
		want = append(want, st.name)
	}
	want = append(want, "run", "stop stages", "assemble", "check")
	lines := strings.Split(diagram, "\n")
	at := 0
	for _, name := range want {
		for at < len(lines) && !namesStage(lines[at], name) {
			at++
		}
		if at == len(lines) {
			t.Fatalf("the run diagram in docs/ARCHITECTURE.md does not name the stage %q after the ones before it (want, in order: %q)", name, want)
		}
		at++
	}
}

// namesStage reports whether a diagram line starts with the stage's name,
// followed by its description after two spaces or by nothing.
func namesStage(line, name string) bool {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), name)
	return ok && (rest == "" || strings.HasPrefix(rest, "  "))
}
