package runner

import (
	"time"

	"github.com/txnbench/txnbench/internal/errclass"
	"github.com/txnbench/txnbench/internal/result"
	"github.com/txnbench/txnbench/internal/workload"
)

// addSteps appends the workload's steps (workload.Stepper) to the recorded
// ops, after the runner's own rows, so they are recorded, ticked and
// merged like ops.
func (r *run) addSteps() {
	r.steps = len(r.names)
	s, ok := r.w.(workload.Stepper)
	if !ok {
		return
	}
	for _, st := range s.Steps() {
		r.names = append(r.names, st.Name)
		r.kinds = append(r.kinds, st.Kind)
	}
}

// RecordStep records step of c's workload (workload.StepRecorder): a
// statement when c's current cycle counts; a phase, or a transaction of
// the workload's background work, when it started in the measured window.
func (c *client) RecordStep(step int, d time.Duration) {
	counted := c.cycleCounted()
	if c.kinds[step] != result.KindStatement {
		counted = c.counted(time.Now().Add(-d))
	}
	if counted {
		c.rec.Record(c.steps+step, c.id, d)
	}
}

// RetryStep counts an error of step that the runner retries, when c's
// current cycle counts.
func (c *client) RetryStep(step int) {
	if c.cycleCounted() {
		c.counts.retry(c.steps + step)
	}
}

// FailStep counts an error of step that is not retried, when c's current
// cycle counts.
func (c *client) FailStep(step int, class errclass.Class) {
	if c.cycleCounted() {
		c.counts.fail(c.steps+step, class, nil)
	}
}

// cycleCounted reports whether c's current cycle falls in the measured
// window.
func (c *client) cycleCounted() bool {
	return c.countedAt(c.busy[c.id].cycle.Load())
}
