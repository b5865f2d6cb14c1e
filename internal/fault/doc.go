// Package fault reads --fault AT:KIND[:ARG] values, injects the faults on
// their schedule as a runner observer (the job does the injecting, with
// what it started), follows the cycles around them and measures what each
// fault did: how long until an op succeeded again, until throughput came
// back, the errors, reconnects and unknown commits in between.
package fault
