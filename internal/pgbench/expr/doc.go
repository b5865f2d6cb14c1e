// Package expr parses and evaluates pgbench's expression language, the
// right-hand side of \set and the conditions of \if and \elif, exactly as
// PostgreSQL 15's pgbench does: the same grammar and precedence, the same
// int/double/boolean/NULL semantics, the same random functions drawing from
// the same generator (package prng), the same rendering of values into SQL
// and the same error messages.
//
// Parse compiles an expression once into a tree of small nodes; Eval walks
// it without allocating, so it can run on every transaction.
package expr
