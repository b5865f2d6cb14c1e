// Package connect is how clients get their connections: each keeps its
// own session, opens one per transaction (like pgbench -C), or borrows one
// from a pool that all clients share. It reports how long getting a
// connection took, which the runner records beside the op latency.
package connect
