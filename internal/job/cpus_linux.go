package job

import "golang.org/x/sys/unix"

// allowedCPUs is the CPUs this process may use.
func allowedCPUs() ([]int, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(0, &s); err != nil {
		return nil, err
	}
	var cpus []int
	for i := range 1024 {
		if s.IsSet(i) {
			cpus = append(cpus, i)
		}
	}
	return cpus, nil
}

// setAffinity sets the CPUs thread tid may run on.
func setAffinity(tid int, cpus []int) error {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return unix.SchedSetaffinity(tid, &set)
}
