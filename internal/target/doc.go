// Package target opens connections to one database: embedded SQLite or any
// PostgreSQL-wire server. It reads the dialect and version from the server,
// exposes what the dialect supports as Capabilities, and classifies driver
// errors into stable classes. It is the only package that imports a database
// driver; everything above it talks to Conn.
package target
