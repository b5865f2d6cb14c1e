package workload

import (
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
)

// Step is a timed part of a workload's work that is not an op of its own:
// a command of a script (result.KindStatement), or a phase that may span
// goroutines, such as the time from a signal to its completion
// (result.KindPhase). The runner records steps with the ops, in the same
// window: a statement counts when its cycle counts, a phase when it
// started in the window; the warm-up is excluded from both.
type Step struct {
	Name string
	Kind result.Kind
}

// Stepper is implemented by a Workload with steps. Steps lists them in
// report order; a StepRecorder's step argument is an index into it. Its
// clients implement StepClient.
type Stepper interface {
	Steps() []Step
}

// StepClient is implemented by the Client of a Stepper: the runner hands
// it its recorder before its first cycle.
type StepClient interface {
	RecordSteps(rec StepRecorder)
}

// StepRecorder records one client's steps. Its methods are cheap, do not
// allocate and may be called from any goroutine.
type StepRecorder interface {
	// RecordStep adds one step that took d.
	RecordStep(step int, d time.Duration)
	// RetryStep counts an error of step after which the runner retries
	// the op; FailStep one after which it does not, by class.
	RetryStep(step int)
	FailStep(step int, class errclass.Class)
}
