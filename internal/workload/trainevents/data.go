package trainevents

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// event is one generated event: its id, its flat fields and its payload,
// which points into the generator's buffer.
type event struct {
	id          [16]byte
	eventType   string
	authorityID [16]byte
	trainID     []byte // points into the generator's buffer
	payload     []byte // a JSON document of about 1 KB
}

// generator makes events from one random stream into a reused buffer, so
// generating a batch allocates nothing once the buffer has grown.
type generator struct {
	rng *rand.Rand
	now func() time.Time
}

const payloadWindow = 21 * 24 * time.Hour // createdAt lies within this

var (
	directions    = []string{"NORTH", "SOUTH", "EAST", "WEST"}
	positions     = []string{"NORMAL", "REVERSE"}
	sourceSystems = []string{"CAD", "INTERLOCKING", "PTC", "YARD", "DISPATCH"}
	railroads     = []string{"RR", "UP", "BN", "CS", "NS"}
	newStates     = []string{"NEW", "QUEUED", "IN_PROGRESS", "APPLIED", "CANCELLED"}
)

// fill generates n events into b, reusing its memory. The payloads and
// train ids point into b.buf, valid until b is filled again.
func (g *generator) fill(b *batch, n int) {
	b.events, b.buf, b.offsets = b.events[:0], b.buf[:0], b.offsets[:0]
	now := g.now()
	for i := 0; i < n; i++ {
		var e event
		start := len(b.buf)
		var trainStart, trainEnd int
		b.buf, trainStart, trainEnd = g.appendPayload(b.buf, &e, now)
		b.offsets = append(b.offsets, [4]int{start, len(b.buf), trainStart, trainEnd})
		b.events = append(b.events, e)
	}
	for i, o := range b.offsets { // the buffer may have moved while growing
		b.events[i].payload = b.buf[o[0]:o[1]:o[1]]
		b.events[i].trainID = b.buf[o[2]:o[3]:o[3]]
	}
}

// appendPayload appends one event's JSON to b, fills e's flat fields and
// returns the offsets of the train id inside b.
func (g *generator) appendPayload(b []byte, e *event, now time.Time) ([]byte, int, int) {
	r := g.rng
	e.id = newUUID(r)
	e.authorityID = newUUID(r)
	e.eventType = eventTypes[r.IntN(len(eventTypes))]
	created := now.Add(-time.Duration(r.Int64N(int64(payloadWindow)))).UTC()

	b = append(b, `{"eventType":"`...)
	b = append(b, e.eventType...)
	b = append(b, `","authorityId":"`...)
	b = appendUUID(b, e.authorityID)
	b = append(b, `","deviceKey":"`...)
	b = appendUUID(b, newUUID(r))
	b = append(b, `","state":"NEW","createdAt":"`...)
	b = appendTimestamp(b, created)
	b = append(b, `","route":{"segments":[`...)
	b = appendList(b, 3, func(b []byte) []byte {
		b = append(b, `{"id":"SEG-`...)
		b = appendUint(b, r.IntN(100000))
		b = append(b, `","direction":"`...)
		b = append(b, directions[r.IntN(len(directions))]...)
		b = append(b, `","trackSections":[`...)
		b = appendList(b, 3, func(b []byte) []byte { return appendUint(b, r.IntN(1000000)) })
		b = append(b, `],"speedLimitKph":`...)
		b = appendUint(b, 20+r.IntN(14)*10)
		return append(b, '}')
	})
	b = append(b, `],"switches":[`...)
	b = appendList(b, 2, func(b []byte) []byte {
		b = append(b, `{"id":"SW-`...)
		b = appendUint(b, r.IntN(10000))
		b = append(b, `","position":"`...)
		b = append(b, positions[r.IntN(2)]...)
		return append(b, `"}`...)
	})
	b = append(b, `],"attributes":{"ALLOW_PASS":`...)
	b = strconv.AppendBool(b, r.IntN(2) == 0)
	b = append(b, `,"REQUIRES_ACK":`...)
	b = strconv.AppendBool(b, r.IntN(2) == 0)
	b = append(b, `,"SLOW_ORDER":`...)
	b = strconv.AppendBool(b, r.IntN(2) == 0)
	b = append(b, `},"signalId":"SIG-`...)
	b = appendUint(b, r.IntN(100000))
	b = append(b, `"},"metrics":{"flags":{"onTrack":`...)
	b = strconv.AppendBool(b, r.IntN(2) == 0)
	b = append(b, `,"fleeted":`...)
	b = strconv.AppendBool(b, r.IntN(2) == 0)
	b = append(b, `},"circuitIds":[`...)
	b = appendList(b, 4, func(b []byte) []byte { return appendUint(b, r.IntN(100000)) })
	b = append(b, `],"confidence":`...)
	b = appendFixed4(b, 0.5+r.Float64()*0.5)
	b = append(b, `},"train":{"trainId":"`...)
	trainStart := len(b)
	b = append(b, railroads[r.IntN(len(railroads))]...)
	b = append(b, '-')
	b = appendPadded(b, r.IntN(100), 2)
	b = append(b, '-')
	b = appendPadded(b, r.IntN(100000), 5)
	b = append(b, '-')
	b = appendDate(b, created, false)
	trainEnd := len(b)
	b = append(b, `","withinLimits":`...)
	b = strconv.AppendBool(b, r.IntN(10) != 0)
	b = append(b, `,"direction":"`...)
	b = append(b, directions[r.IntN(len(directions))]...)
	b = append(b, `"},"meta":{"userId":"user-`...)
	b = appendUint(b, r.IntN(10000))
	b = append(b, `","logicalPos":`...)
	b = appendUint(b, r.IntN(10000000))
	b = append(b, `,"sourceSystem":"`...)
	b = append(b, sourceSystems[r.IntN(len(sourceSystems))]...)
	b = append(b, `","note":"`...)
	b = appendNote(b, r)
	b = append(b, `"}}`...)
	return b, trainStart, trainEnd
}

// noteWords is the vocabulary of the dispatcher's note.
const noteWords = "clear proceed caution restricted approach stop signal track section crossing power work zone protection dispatch authority route switch normal reverse speed limit train position update "

// noteSpans maps each position a note word is drawn at to the word around
// it (the word ending at it when it is a space): a table instead of a scan
// for word boundaries per word.
var noteSpans = func() (s [len(noteWords) - 40]struct{ start, end uint16 }) {
	for p := range s {
		start := p
		for start > 0 && noteWords[start-1] != ' ' {
			start--
		}
		end := start + 1
		for end < len(noteWords) && noteWords[end] != ' ' {
			end++
		}
		s[p].start, s[p].end = uint16(start), uint16(end)
	}
	return s
}()

// notePadded is noteWords with room after it to copy 16 bytes from where
// any word starts.
var notePadded = func() (a [len(noteWords) + 16]byte) {
	copy(a[:], noteWords)
	return a
}()

// appendNote appends free text of 160-240 characters, the dispatcher's note
// that brings the document to about 1 KB.
func appendNote(b []byte, r *rand.Rand) []byte {
	n := 160 + r.IntN(81)
	b = slices.Grow(b, n+16)
	for n > 0 {
		sp := noteSpans[r.IntN(len(noteSpans))]
		// The word and the space after it (every word in noteWords has
		// one), cut where the note ends: 16 bytes copied at once (no word
		// is longer), of which k are kept.
		k := min(int(sp.end-sp.start)+1, n)
		l := len(b)
		*(*[16]byte)(b[l : l+16]) = *(*[16]byte)(notePadded[sp.start:])
		b = b[:l+k]
		n -= k
	}
	return b
}

// appendDate appends t's date as 20060102, or with sep between the parts
// as 2006-01-02, without the cost of a layout.
func appendDate(b []byte, t time.Time, sep bool) []byte {
	y, m, d := t.Date()
	b = appendPadded(b, y, 4)
	if sep {
		b = append(b, '-')
	}
	b = append(b, byte('0'+m/10), byte('0'+m%10))
	if sep {
		b = append(b, '-')
	}
	return append(b, byte('0'+d/10), byte('0'+d%10))
}

// appendTimestamp appends t, already in UTC, as 2006-01-02T15:04:05.000Z.
func appendTimestamp(b []byte, t time.Time) []byte {
	b = appendDate(b, t, true)
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(b, 'T', byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10),
		':', byte('0'+s/10), byte('0'+s%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// appendPadded appends v, not negative, in decimal with leading zeros to
// at least width (at most 20) digits. It writes two digits at a time into
// an array of zeros and appends its tail: the generator appends a dozen
// small numbers per event, and strconv's general path costs more.
func appendPadded(b []byte, v, width int) []byte {
	d := [20]byte{'0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0', '0'}
	i := len(d)
	u := uint64(v)
	for ; u >= 10; u /= 100 {
		r := u % 100 * 2
		i -= 2
		d[i], d[i+1] = digitPairs[r], digitPairs[r+1]
	}
	if u > 0 {
		i--
		d[i] = byte('0' + u)
	}
	return append(b, d[min(i, len(d)-width):]...)
}

// digitPairs holds the decimal digits of 00 to 99.
const digitPairs = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

// appendList appends n elements, each what elem appends, separated by
// commas.
func appendList(b []byte, n int, elem func([]byte) []byte) []byte {
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b)
	}
	return b
}

// appendUint appends v, not negative, in decimal.
func appendUint(b []byte, v int) []byte { return appendPadded(b, v, 1) }

// appendFixed4 appends x rounded to 4 decimals, byte for byte what
// strconv.AppendFloat(b, x, 'f', 4, 64) appends, without its general
// algorithm when x is in [0.5, 1), as every confidence is. There x is
// exactly m/2^53 for an integer m, so x*10^4 is the 128-bit m*10^4 shifted
// right by 53, rounded to nearest, ties to even, as strconv rounds.
func appendFixed4(b []byte, x float64) []byte {
	if !(x >= 0.5 && x < 1) {
		return strconv.AppendFloat(b, x, 'f', 4, 64)
	}
	m := uint64(x * (1 << 53)) // exact
	hi, lo := bits.Mul64(m, 10000)
	q := hi<<11 | lo>>53
	rest, half := lo&(1<<53-1), uint64(1)<<52
	if rest > half || rest == half && q&1 == 1 {
		q++
	}
	if q == 10000 {
		return append(b, "1.0000"...)
	}
	b = append(b, '0', '.')
	return appendPadded(b, int(q), 4)
}

// newUUID returns a random (version 4) UUID from r.
func newUUID(r *rand.Rand) [16]byte {
	var u [16]byte
	a, b := r.Uint64(), r.Uint64()
	for i := 0; i < 8; i++ {
		u[i] = byte(a >> (56 - 8*i))
		u[8+i] = byte(b >> (56 - 8*i))
	}
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u
}

const hexDigits = "0123456789abcdef"

// appendUUID appends u in its canonical 36-character text form.
func appendUUID(b []byte, u [16]byte) []byte {
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b = append(b, '-')
		}
		b = append(b, hexDigits[c>>4], hexDigits[c&0xf])
	}
	return b
}

// parseUUID reads the canonical text form.
func parseUUID[T string | []byte](s T) ([16]byte, bool) {
	var u [16]byte
	if len(s) != 36 {
		return u, false
	}
	j := 0
	for i := 0; i < 36; {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if s[i] != '-' {
				return u, false
			}
			i++
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return u, false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return u, true
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
