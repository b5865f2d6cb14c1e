// Package cscan holds the pieces of C's number scanning (strtol, strtod,
// sscanf) that pgbench's parsers share: leading white space and a sign, a
// run of decimal digits, and a number's exponent. What each caller does on
// overflow and on trailing text differs, so that stays with the caller.
package cscan
