// Package faultproxy is a small TCP proxy between txnbench's clients and
// the server (or pooler) they connect to. Put in the path when a network
// fault is scheduled, it adds latency to requests, holds all traffic like
// a black hole (TCP would retransmit, so nothing is lost, only late), and
// resets every connection. Started shaped (StartShaped, --network), it
// makes the network a separate host would have: a round trip, jitter, a
// bandwidth and loss, timer-driven and batched per connection.
package faultproxy
