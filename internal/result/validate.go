package result

import (
	"errors"
	"fmt"
)

// Validate checks what Load read: a result with no ops, an op without a
// name or histogram, or a negative count or duration was not written by
// txnbench (or was damaged since) and would print nonsense. The error says
// what is wrong.
func (r *Result) Validate() error {
	if len(r.Ops) == 0 {
		return errors.New("holds no ops: it records no run; give the JSON that txnbench run --json wrote")
	}
	if r.MeasuredS < 0 {
		return fmt.Errorf("measured_s %g is negative: the file is damaged", r.MeasuredS)
	}
	if r.Config.Clients < 0 {
		return fmt.Errorf("config.clients %d is negative: the file is damaged", r.Config.Clients)
	}
	for _, o := range r.Ops {
		if o.Name == "" {
			return errors.New("an op has no name: the file is damaged")
		}
		if o.Hist == nil {
			return fmt.Errorf("op %s has no histogram", o.Name)
		}
		if err := nonNegative(o.Name, map[string]int64{"count": o.Count, "clients": int64(o.Clients), "retries": o.Retries, "late": o.Late, "skipped": o.Skipped}, o.Errors); err != nil {
			return err
		}
	}
	for _, iv := range r.Intervals {
		if iv.ElapsedS < 0 || iv.LengthS < 0 {
			return fmt.Errorf("an interval has a negative time (elapsed_s %g, length_s %g): the file is damaged", iv.ElapsedS, iv.LengthS)
		}
		for _, o := range iv.Ops {
			if err := nonNegative(o.Name+" in an interval", map[string]int64{"count": o.Count, "retries": o.Retries, "errors": o.Errors, "skipped": o.Skipped}, o.ErrorClasses); err != nil {
				return err
			}
		}
	}
	return nil
}

// nonNegative refuses a negative count of op.
func nonNegative(op string, counts, errs map[string]int64) error {
	for name, n := range counts {
		if n < 0 {
			return fmt.Errorf("op %s has a negative %s (%d): the file is damaged", op, name, n)
		}
	}
	for class, n := range errs {
		if n < 0 {
			return fmt.Errorf("op %s has a negative count of %s errors (%d): the file is damaged", op, class, n)
		}
	}
	return nil
}
