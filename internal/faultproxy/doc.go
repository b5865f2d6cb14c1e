// Package faultproxy is a small TCP proxy between txnbench's clients and
// the server (or pooler) they connect to, put in the path only when a
// network fault is scheduled: it adds latency to requests, holds all
// traffic like a black hole (TCP would retransmit, so nothing is lost,
// only late), and resets every connection.
package faultproxy
