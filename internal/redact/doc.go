// Package redact masks passwords in database URLs, connection strings and
// any text that holds them (error messages, recorded arguments), so a
// result, a report or a log line never shows one.
package redact
