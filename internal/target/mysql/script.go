package mysql

import "strings"

// The pgbench script engine on MySQL-protocol sessions is target's, on
// database/sql (target.SQLConn), with the statements' $n placeholders made ?, and END (a
// PostgreSQL transaction's end, which pgbench's builtins use; MySQL has no
// such statement) sent as COMMIT.

// commitSpelling returns COMMIT for a statement that is END alone, after
// any leading comments (the op's tag), which it keeps.
func commitSpelling(query string) string {
	body := strings.TrimLeft(query, " \t\r\n")
	for strings.HasPrefix(body, "/*") {
		i := strings.Index(body, "*/")
		if i < 0 {
			return query
		}
		body = strings.TrimLeft(body[i+2:], " \t\r\n")
	}
	if !strings.EqualFold(strings.TrimRight(body, "; \t\r\n"), "END") {
		return query
	}
	return query[:len(query)-len(body)] + "COMMIT"
}
