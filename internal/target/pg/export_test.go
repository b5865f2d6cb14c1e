package pg

import "github.com/txnbench/txnbench/internal/target"

// ReadAhead is how many of c's exchanges the script's own reader of
// answers read to the end, and the bytes it holds unread; ok false when c
// is not a session on a socket of its own (answers.go).
func ReadAhead(c target.Conn) (exchanges, unread int, ok bool) {
	p, isPG := c.(*pgConn)
	if !isPG {
		return 0, 0, false
	}
	rc, isRaw := p.c.PgConn().Conn().(*rawConn)
	if !isRaw {
		return 0, 0, false
	}
	return rc.in.read, rc.in.w - rc.in.r, true
}

// DescriptionCache is the capacity of c's cache of statement
// descriptions (pgx's, read only in exec mode cache_describe).
func DescriptionCache(c target.Conn) int {
	return c.(*pgConn).c.Config().DescriptionCacheCapacity
}
