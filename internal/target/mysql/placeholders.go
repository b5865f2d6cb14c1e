package mysql

import "sync"

// rewritten is a statement in the MySQL protocol's spelling: its $n
// placeholders (target's spelling, PostgreSQL's) made ?, and for each ?
// the number n of the argument it takes.
type rewritten struct {
	sql  string
	nums []int
}

// rewrites caches rewrite's results: workloads send the same few
// statements over and over.
var rewrites struct {
	sync.RWMutex
	m map[string]rewritten
}

// maxRewrites bounds the cache; statements beyond it are rewritten anew.
const maxRewrites = 4096

// placeholders returns query with ? for its $n placeholders and args in
// the order of the ?s. A query without $n comes back as it is.
func placeholders(query string, args []any) (string, []any) {
	if len(args) == 0 {
		return query, args
	}
	return spelled(query, args)
}

// spelled returns query with ? for its $n placeholders and args in the
// order of the ?s, args or not (a statement prepared before its
// arguments are known).
func spelled(query string, args []any) (string, []any) {
	rewrites.RLock()
	r, ok := rewrites.m[query]
	rewrites.RUnlock()
	if !ok {
		r = rewrite(query)
		rewrites.Lock()
		if rewrites.m == nil {
			rewrites.m = map[string]rewritten{}
		}
		if len(rewrites.m) < maxRewrites {
			rewrites.m[query] = r
		}
		rewrites.Unlock()
	}
	if r.nums == nil {
		return query, args
	}
	out := make([]any, len(r.nums))
	for i, n := range r.nums {
		if n <= len(args) {
			out[i] = args[n-1]
		}
	}
	return r.sql, out
}

// rewrite turns the $n placeholders of q into ?, leaving quoted strings,
// quoted identifiers and comments alone.
func rewrite(q string) rewritten {
	var r rewritten
	b := make([]byte, 0, len(q))
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for ; j < len(q); j++ {
				if q[j] == '\\' && c != '`' {
					j++
				} else if q[j] == c {
					break
				}
			}
			j = min(j, len(q)-1)
			b = append(b, q[i:j+1]...)
			i = j
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := i
			for j < len(q) && q[j] != '\n' {
				j++
			}
			b = append(b, q[i:j]...)
			i = j - 1
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := i + 2
			for j+1 < len(q) && !(q[j] == '*' && q[j+1] == '/') {
				j++
			}
			j = min(j+2, len(q))
			b = append(b, q[i:j]...)
			i = j - 1
		case c == '$' && i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9':
			n, j := 0, i+1
			for ; j < len(q) && q[j] >= '0' && q[j] <= '9'; j++ {
				n = n*10 + int(q[j]-'0')
			}
			b = append(b, '?')
			r.nums = append(r.nums, n)
			i = j - 1
		default:
			b = append(b, c)
		}
	}
	r.sql = string(b)
	return r
}
