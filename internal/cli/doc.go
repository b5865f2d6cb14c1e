// Package cli is txnbench's command line: the cobra commands, flag
// parsing, signals, output and exit codes. It is the only package that
// prints or exits.
package cli
