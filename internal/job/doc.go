// Package job runs one specification end to end: it opens the target
// (starting a throwaway PostgreSQL when asked), initialises the workload,
// drives the runner, checks the invariants and assembles the Result. It
// cleans up what it started whatever happens.
package job
