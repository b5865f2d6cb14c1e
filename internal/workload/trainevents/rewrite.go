package trainevents

import "github.com/tidwall/sjson"

var inPlace = &sjson.Options{Optimistic: true, ReplaceInPlace: true}

// appendRewrite appends to dst the TEXT payload doc with its "state" set to
// state and its "metrics.flags.fleeted" to fleeted: byte for byte what two
// sjson.SetBytesOptions calls make of it. A document in the shape the
// workload writes (what it generated, or an earlier rewrite made) is
// edited by hand, in one copy; anything else is left to sjson, which may
// edit doc in place.
func appendRewrite(dst, doc []byte, state string, fleeted bool) ([]byte, error) {
	if out, ok := appendEdited(dst, doc, state, fleeted); ok {
		return out, nil
	}
	p, err := sjson.SetBytesOptions(doc, "state", state, inPlace)
	if err == nil {
		p, err = sjson.SetBytesOptions(p, "metrics.flags.fleeted", fleeted, inPlace)
	}
	if err != nil {
		return dst, err
	}
	return append(dst, p...), nil
}

// appendEdited is appendRewrite's hand edit. It reports false, having
// appended nothing, unless doc is compact JSON (no white space) whose first
// "state" member is a string without escapes, whose first "metrics" member
// is an object with a first "flags" member that is an object with a first
// "fleeted" member that is true or false, with no escaped keys on the way
// and state needing no escapes: there the values sjson's search finds are
// these, and its edit is a splice.
func appendEdited(dst, doc []byte, state string, fleeted bool) ([]byte, bool) {
	for i := 0; i < len(state); i++ {
		if c := state[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			return dst, false
		}
	}
	s0, s1, ok := member(doc, 0, "state")
	if !ok || doc[s0] != '"' {
		return dst, false
	}
	if _, escaped := skipString(doc, s0); escaped {
		return dst, false
	}
	m0, _, ok := member(doc, 0, "metrics")
	var f0, f1 int
	if ok {
		m0, _, ok = member(doc, m0, "flags")
	}
	if ok {
		f0, f1, ok = member(doc, m0, "fleeted")
	}
	if !ok {
		return dst, false
	}
	if v := string(doc[f0:f1]); v != "true" && v != "false" {
		return dst, false
	}
	fv := "false"
	if fleeted {
		fv = "true"
	}
	if s0 < f0 { // top-level members: state's value and metrics' are apart
		dst = append(dst, doc[:s0]...)
		dst = append(dst, '"')
		dst = append(dst, state...)
		dst = append(dst, '"')
		dst = append(dst, doc[s1:f0]...)
		dst = append(dst, fv...)
		return append(dst, doc[f1:]...), true
	}
	dst = append(dst, doc[:f0]...)
	dst = append(dst, fv...)
	dst = append(dst, doc[f1:s0]...)
	dst = append(dst, '"')
	dst = append(dst, state...)
	dst = append(dst, '"')
	return append(dst, doc[s1:]...), true
}

// member returns the span of the value of the first member named key of
// the compact JSON object at doc[i], or false when there is none or the
// object is not as compact JSON writes it, or has a key with an escape.
func member(doc []byte, i int, key string) (int, int, bool) {
	if i >= len(doc) || doc[i] != '{' {
		return 0, 0, false
	}
	i++
	for i < len(doc) && doc[i] == '"' {
		end, escaped := skipString(doc, i)
		name := doc[i+1 : max(end-1, i+1)]
		if i = end; end == 0 || escaped || i >= len(doc) || doc[i] != ':' {
			return 0, 0, false
		}
		i++
		end, ok := skipValue(doc, i)
		if !ok {
			return 0, 0, false
		}
		if string(name) == key {
			return i, end, true
		}
		if i = end; i < len(doc) && doc[i] == ',' {
			i++
		} else {
			break
		}
	}
	return 0, 0, false
}

// skipValue returns the end of the compact JSON value at doc[i].
func skipValue(doc []byte, i int) (int, bool) {
	if i >= len(doc) {
		return 0, false
	}
	switch doc[i] {
	case '"':
		end, _ := skipString(doc, i)
		return end, end > 0
	case '{', '[':
		depth := 0
		for ; i < len(doc); i++ {
			switch doc[i] {
			case '"':
				end, _ := skipString(doc, i)
				if end == 0 {
					return 0, false
				}
				i = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1, true
				}
			}
		}
		return 0, false
	}
	start := i
	for ; i < len(doc); i++ {
		switch c := doc[i]; {
		case c == ',' || c == '}' || c == ']':
			return i, i > start
		case !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'E'):
			return 0, false
		}
	}
	return 0, false
}

// skipString returns the end of the JSON string at doc[i] (a quote), or 0
// when it has none, and whether the string has an escape.
func skipString(doc []byte, i int) (end int, escaped bool) {
	for i++; i < len(doc); i++ {
		switch doc[i] {
		case '"':
			return i + 1, escaped
		case '\\':
			escaped = true
			i++ // the escaped byte
		}
	}
	return 0, escaped
}
