// Package prng reproduces, bit for bit, the pseudo-random numbers PostgreSQL
// 15's pgbench draws: pg_prng's xoroshiro128** generator seeded through
// splitmix64 (src/common/pg_prng.c), pgbench's uniform, exponential,
// gaussian, zipfian and poisson helpers, its permute() and hash functions,
// and the order in which pgbench hands out per-client and per-thread seeds
// from --random-seed. With the same seed, a txnbench client draws the same
// values as the pgbench client with the same number.
package prng
