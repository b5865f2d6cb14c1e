//go:build !linux

package faultproxy

import "time"

func gettid() int { return 0 }

// threadCPU is not known here: the proxy's CPU is not counted.
func threadCPU(int) (time.Duration, bool) { return 0, false }
