// Package mysql is target's driver for MySQL-protocol servers (MariaDB,
// MySQL) through github.com/go-sql-driver/mysql: sessions and pools over
// database/sql, the dialect and capabilities read from SELECT version(),
// and the servers' error numbers mapped to target's classes. It registers
// itself for mysql:// specs and is the only package importing the
// driver library.
package mysql
