//go:build !linux

package job

import "errors"

// errNoAffinity is --cpus where there is no sched_setaffinity.
var errNoAffinity = errors.New("--cpus places processes with Linux's sched_setaffinity, which this system lacks: run without --cpus")

func allowedCPUs() ([]int, error) { return nil, errNoAffinity }

func setAffinity(int, []int) error { return errNoAffinity }
