// Package promtext reads the Prometheus text exposition format (0.0.4)
// strictly: every line must follow the format's rules, and histograms must
// be consistent. It checks what package live writes, in tests and by hand.
package promtext
