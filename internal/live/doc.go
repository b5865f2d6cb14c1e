// Package live serves a run's metrics to Prometheus while it runs: an HTTP
// endpoint writing the text exposition format 0.0.4 by hand (no client
// library), fed by the runner's progress intervals. Counters and latency
// histograms therefore move once per progress interval (--progress).
package live
