package trainevents

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

// fixedNow is the clock of the tests that need reproducible payloads.
var fixedNow = time.Date(2025, 12, 5, 10, 30, 15, 123456789, time.UTC)

func newTestGenerator(seed uint64, now time.Time) *generator {
	return &generator{rng: rand.New(rand.NewPCG(seed, 42)), now: func() time.Time { return now }}
}

// The shape of a payload as DESIGN.md describes it. Pointers and
// json.RawMessage catch fields that are missing or of the wrong type.
type payloadDoc struct {
	EventType   *string `json:"eventType"`
	AuthorityID *string `json:"authorityId"`
	DeviceKey   *string `json:"deviceKey"`
	State       *string `json:"state"`
	CreatedAt   *string `json:"createdAt"`
	Route       *struct {
		Segments []struct {
			ID            *string `json:"id"`
			Direction     *string `json:"direction"`
			TrackSections []int   `json:"trackSections"`
		} `json:"segments"`
		Switches []struct {
			ID       *string `json:"id"`
			Position *string `json:"position"`
		} `json:"switches"`
		Attributes map[string]json.RawMessage `json:"attributes"`
		SignalID   *string                    `json:"signalId"`
	} `json:"route"`
	Metrics *struct {
		Flags      map[string]json.RawMessage `json:"flags"`
		CircuitIDs []int                      `json:"circuitIds"`
		Confidence *float64                   `json:"confidence"`
	} `json:"metrics"`
	Train *struct {
		TrainID      *string `json:"trainId"`
		WithinLimits *bool   `json:"withinLimits"`
		Direction    *string `json:"direction"`
	} `json:"train"`
	Meta *struct {
		UserID       *string `json:"userId"`
		LogicalPos   *int64  `json:"logicalPos"`
		SourceSystem *string `json:"sourceSystem"`
	} `json:"meta"`
}

var (
	trainIDPattern = regexp.MustCompile(`^[A-Z]{2}-\d{2}-\d{5}-\d{8}$`)
	uuidPattern    = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
)

// isJSONBool reports whether raw is a JSON true or false.
func isJSONBool(raw json.RawMessage) bool {
	s := string(raw)
	return s == "true" || s == "false"
}

// checkPayload verifies one event against DESIGN.md and returns what is wrong.
func checkPayload(e event, now time.Time) []string {
	var bad []string
	fail := func(format string) { bad = append(bad, format) }
	var generic map[string]any
	if err := json.Unmarshal(e.payload, &generic); err != nil {
		return []string{"not valid JSON: " + err.Error()}
	}
	var d payloadDoc
	if err := json.Unmarshal(e.payload, &d); err != nil {
		return []string{"wrong field types: " + err.Error()}
	}
	if d.EventType == nil || !slices.Contains(eventTypes, *d.EventType) {
		fail("eventType missing or unknown")
	} else if *d.EventType != e.eventType {
		fail("eventType differs from the flat field")
	}
	for name, p := range map[string]*string{"authorityId": d.AuthorityID, "deviceKey": d.DeviceKey} {
		if p == nil {
			fail(name + " missing")
			continue
		}
		u, err := uuid.Parse(*p)
		if err != nil || !uuidPattern.MatchString(*p) || u.Version() != 4 || u.Variant() != uuid.RFC4122 {
			fail(name + " is not a canonical version 4 UUID: " + *p)
		}
	}
	if d.AuthorityID != nil && *d.AuthorityID != string(appendUUID(nil, e.authorityID)) {
		fail("authorityId differs from the flat field")
	}
	if d.State == nil || *d.State != "NEW" {
		fail("state is not NEW")
	}
	if d.CreatedAt == nil {
		fail("createdAt missing")
	} else if ts, err := time.Parse("2006-01-02T15:04:05.000Z", *d.CreatedAt); err != nil {
		fail("createdAt does not parse: " + *d.CreatedAt)
	} else if ts.After(now) || ts.Before(now.Add(-payloadWindow-time.Millisecond)) {
		fail("createdAt not within the last 21 days: " + *d.CreatedAt)
	}
	if r := d.Route; r == nil {
		fail("route missing")
	} else {
		if len(r.Segments) != 3 {
			fail("route.segments has not 3 items")
		}
		for _, s := range r.Segments {
			if s.ID == nil || !strings.HasPrefix(*s.ID, "SEG-") || s.Direction == nil || !slices.Contains(directions, *s.Direction) || len(s.TrackSections) != 3 {
				fail("route.segments item malformed")
			}
		}
		if len(r.Switches) != 2 {
			fail("route.switches has not 2 items")
		}
		for _, s := range r.Switches {
			if s.ID == nil || s.Position == nil || (*s.Position != "NORMAL" && *s.Position != "REVERSE") {
				fail("route.switches item malformed")
			}
		}
		for _, k := range []string{"ALLOW_PASS", "REQUIRES_ACK", "SLOW_ORDER"} {
			if !isJSONBool(r.Attributes[k]) {
				fail("route.attributes." + k + " is not a bool")
			}
		}
		if r.SignalID == nil || !strings.HasPrefix(*r.SignalID, "SIG-") {
			fail("route.signalId malformed")
		}
	}
	if m := d.Metrics; m == nil {
		fail("metrics missing")
	} else {
		for _, k := range []string{"onTrack", "fleeted"} {
			if !isJSONBool(m.Flags[k]) {
				fail("metrics.flags." + k + " is not a bool")
			}
		}
		if len(m.CircuitIDs) != 4 {
			fail("metrics.circuitIds has not 4 ints")
		}
		if m.Confidence == nil || *m.Confidence < 0.5 || *m.Confidence > 1 {
			fail("metrics.confidence not in [0.5, 1]")
		}
	}
	if tr := d.Train; tr == nil || tr.TrainID == nil || tr.WithinLimits == nil || tr.Direction == nil {
		fail("train or one of its fields missing")
	} else {
		if !trainIDPattern.MatchString(*tr.TrainID) {
			fail("train.trainId malformed: " + *tr.TrainID)
		}
		if *tr.TrainID != string(e.trainID) {
			fail("train.trainId differs from the flat field")
		}
		if d.CreatedAt != nil && len(*d.CreatedAt) >= 10 && !strings.HasSuffix(*tr.TrainID, strings.ReplaceAll((*d.CreatedAt)[:10], "-", "")) {
			fail("train.trainId does not end with the creation date")
		}
	}
	if m := d.Meta; m == nil || m.UserID == nil || m.LogicalPos == nil || m.SourceSystem == nil {
		fail("meta or one of its fields missing")
	} else if !strings.HasPrefix(*m.UserID, "user-") || !slices.Contains(sourceSystems, *m.SourceSystem) {
		fail("meta fields malformed")
	}
	return bad
}

func TestPayloadShape(t *testing.T) {
	now := time.Now()
	g := newTestGenerator(7, now)
	const n = 1000
	events := g.generate(n)
	if len(events) != n {
		t.Fatalf("batch made %d events, want %d", len(events), n)
	}
	total := 0
	seen := map[[16]byte]bool{}
	for i, e := range events {
		total += len(e.payload)
		if l := len(e.payload); l < 800 || l > 1400 {
			t.Errorf("event %d: payload is %d bytes, want 800..1400", i, l)
		}
		for _, msg := range checkPayload(e, now) {
			t.Errorf("event %d: %s\n%s", i, msg, e.payload)
		}
		if seen[e.id] {
			t.Errorf("event %d: duplicate id", i)
		}
		seen[e.id] = true
		if e.id == e.authorityID {
			t.Errorf("event %d: id equals authority id", i)
		}
		if t.Failed() {
			break
		}
	}
	mean := float64(total) / n
	t.Logf("mean payload size over %d events: %.0f bytes", n, mean)
	if mean < 900 || mean > 1300 {
		t.Errorf("mean payload size %.0f bytes, want about 1 KB", mean)
	}
}

// TestPayloadCovers checks that the random choices reach every value.
func TestPayloadCovers(t *testing.T) {
	g := newTestGenerator(3, fixedNow)
	types := map[string]bool{}
	positions := map[string]bool{}
	fleeted := map[string]bool{}
	for _, e := range g.generate(500) {
		types[e.eventType] = true
		var d payloadDoc
		if err := json.Unmarshal(e.payload, &d); err != nil {
			t.Fatal(err)
		}
		for _, s := range d.Route.Switches {
			positions[*s.Position] = true
		}
		fleeted[string(d.Metrics.Flags["fleeted"])] = true
	}
	if len(types) != len(eventTypes) {
		t.Errorf("500 events used %d of %d event types", len(types), len(eventTypes))
	}
	if len(positions) != 2 || len(fleeted) != 2 {
		t.Errorf("positions %v and fleeted %v do not take both values", positions, fleeted)
	}
}

func TestBatchDeterministic(t *testing.T) {
	a := newTestGenerator(1, fixedNow).generate(50)
	b := newTestGenerator(1, fixedNow).generate(50)
	c := newTestGenerator(2, fixedNow).generate(50)
	for i := range a {
		if a[i].id != b[i].id || a[i].authorityID != b[i].authorityID || a[i].eventType != b[i].eventType ||
			!bytes.Equal(a[i].payload, b[i].payload) || !bytes.Equal(a[i].trainID, b[i].trainID) {
			t.Fatalf("event %d differs between two generators with the same seed", i)
		}
	}
	same := 0
	for i := range a {
		if bytes.Equal(a[i].payload, c[i].payload) || a[i].id == c[i].id {
			same++
		}
	}
	if same != 0 {
		t.Errorf("%d of %d events equal between different seeds", same, len(a))
	}
}

// generate fills a fresh batch with n events and returns them.
func (g *generator) generate(n int) []event {
	b := new(batch)
	g.fill(b, n)
	return b.events
}

// TestBatchReuse checks that the slices of every event stay valid after
// the buffer grew while generating, and that refilling a batch reuses its
// memory without corrupting what it returns.
func TestBatchReuse(t *testing.T) {
	g := newTestGenerator(5, fixedNow)
	b := new(batch)
	for round, n := range []int{100, 10, 150, 1} {
		g.fill(b, n)
		events := b.events
		if len(events) != n {
			t.Fatalf("round %d: %d events, want %d", round, len(events), n)
		}
		for i, e := range events {
			for _, msg := range checkPayload(e, fixedNow) {
				t.Fatalf("round %d event %d: %s\n%s", round, i, msg, e.payload)
			}
			if cap(e.payload) != len(e.payload) || cap(e.trainID) != len(e.trainID) {
				t.Errorf("round %d event %d: slices may be appended into the next event", round, i)
			}
		}
	}
	// The events slice and the buffer are reused too.
	g.fill(b, 20)
	first, buf := &b.events[0], &b.buf[0]
	g.fill(b, 5)
	if len(b.events) != 5 || &b.events[0] != first || &b.buf[0] != buf {
		t.Errorf("fill did not reuse the batch's memory")
	}
}

func TestNewUUIDBits(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	for i := 0; i < 1000; i++ {
		u := newUUID(r)
		if u[6]>>4 != 4 {
			t.Fatalf("version nibble %x, want 4", u[6]>>4)
		}
		if u[8]>>6 != 2 {
			t.Fatalf("variant bits %b, want 10", u[8]>>6)
		}
		g, err := uuid.FromBytes(u[:])
		if err != nil || g.Version() != 4 || g.Variant() != uuid.RFC4122 {
			t.Fatalf("%x is not an RFC 4122 version 4 UUID", u)
		}
		if got, want := string(appendUUID(nil, u)), g.String(); got != want {
			t.Fatalf("appendUUID = %s, want %s", got, want)
		}
	}
}

func TestUUIDRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	for i := 0; i < 1000; i++ {
		u := newUUID(r)
		s := appendUUID([]byte("prefix"), u)
		if !bytes.HasPrefix(s, []byte("prefix")) {
			t.Fatal("appendUUID overwrote its buffer")
		}
		got, ok := parseUUID(s[len("prefix"):])
		if !ok || got != u {
			t.Fatalf("parseUUID(%s) = %x, %v; want %x", s, got, ok, u)
		}
	}
}

func TestParseUUID(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want string // canonical form when ok
	}{
		{"123e4567-e89b-42d3-a456-426614174000", true, "123e4567-e89b-42d3-a456-426614174000"},
		{"123E4567-E89B-42D3-A456-426614174ABC", true, "123e4567-e89b-42d3-a456-426614174abc"},
		{"00000000-0000-0000-0000-000000000000", true, "00000000-0000-0000-0000-000000000000"},
		{"ffffffff-ffff-ffff-ffff-ffffffffffff", true, "ffffffff-ffff-ffff-ffff-ffffffffffff"},
		{"", false, ""},
		{"123e4567-e89b-42d3-a456-42661417400", false, ""},     // 35 characters
		{"123e4567-e89b-42d3-a456-4266141740000", false, ""},   // 37 characters
		{"123e4567e89b42d3a456426614174000", false, ""},        // no dashes
		{"123e4567-e89b-42d3-a456_426614174000", false, ""},    // wrong separator
		{"123e4567-e89b-42d3-a4564-26614174000", false, ""},    // dash misplaced
		{"123e4567-e89b-42d3-a456-42661417400g", false, ""},    // not hex
		{"{23e4567-e89b-42d3-a456-42661417400}", false, ""},    // braces
		{"123e4567-e89b-42d3-a456-4266141740\xff0", false, ""}, // not ASCII
		{"123e4567-e89b-42d3-a456-42661417 000", false, ""},    // space
	}
	for _, tt := range tests {
		got, ok := parseUUID([]byte(tt.in))
		if ok != tt.ok {
			t.Errorf("parseUUID(%q) ok = %v, want %v", tt.in, ok, tt.ok)
			continue
		}
		if ok && string(appendUUID(nil, got)) != tt.want {
			t.Errorf("parseUUID(%q) = %s, want %s", tt.in, appendUUID(nil, got), tt.want)
		}
	}
}

func FuzzParseUUID(f *testing.F) {
	f.Add("123e4567-e89b-42d3-a456-426614174000")
	f.Add("123E4567-E89B-42D3-A456-426614174ABC")
	f.Add("123e4567e89b42d3a456426614174000")
	f.Add("")
	f.Add("--------------------------------------------")
	f.Fuzz(func(t *testing.T, s string) {
		u, ok := parseUUID([]byte(s))
		if !ok {
			if g, err := uuid.Parse(s); err == nil && len(s) == 36 {
				t.Errorf("parseUUID(%q) failed; google/uuid reads it as %v", s, g)
			}
			return
		}
		if got := string(appendUUID(nil, u)); got != strings.ToLower(s) {
			t.Errorf("appendUUID(parseUUID(%q)) = %q", s, got)
		}
		if g, err := uuid.Parse(s); err != nil || [16]byte(g) != u {
			t.Errorf("parseUUID(%q) = %x; google/uuid says %v, %v", s, u, g, err)
		}
	})
}

func TestAppendNote(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	words := strings.Fields(noteWords)
	for i := 0; i < 2000; i++ {
		got := appendNote(nil, r)
		if len(got) < 160 || len(got) > 240 {
			t.Fatalf("note %d is %d characters, want 160..240", i, len(got))
		}
		fields := strings.Fields(string(got))
		for j, w := range fields {
			// Only the last word may be cut short.
			if !slices.Contains(words, w) && (j != len(fields)-1 || !slices.ContainsFunc(words, func(v string) bool { return strings.HasPrefix(v, w) })) {
				t.Fatalf("note %d has the word %q, not in the vocabulary", i, w)
			}
		}
		if strings.ContainsAny(string(got), "\"\\\n") || strings.Contains(string(got), "  ") {
			t.Fatalf("note %d needs escaping or has a double space: %q", i, got)
		}
	}
}

func TestAppendTimestamp(t *testing.T) {
	times := []time.Time{
		time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2024, 2, 29, 23, 59, 59, 999999999, time.UTC),
		time.Date(1999, 12, 31, 9, 8, 7, 6000000, time.UTC),
		time.Date(2025, 12, 5, 10, 30, 15, 123456789, time.UTC),
		time.Date(999, 10, 10, 10, 10, 10, 10, time.UTC),
	}
	r := rand.New(rand.NewPCG(1, 1))
	for i := 0; i < 1000; i++ {
		times = append(times, time.Unix(0, r.Int64N(4102444800e9)).UTC())
	}
	for _, tm := range times {
		if got, want := string(appendTimestamp(nil, tm)), tm.Format("2006-01-02T15:04:05.000Z"); got != want {
			t.Errorf("appendTimestamp(%v) = %s, want %s", tm, got, want)
		}
		if got, want := string(appendDate([]byte("x"), tm, false)), "x"+tm.Format("20060102"); got != want {
			t.Errorf("appendDate(%v) = %s, want %s", tm, got, want)
		}
	}
}

func TestAppendPadded(t *testing.T) {
	tests := []struct {
		v, width int
		want     string
	}{
		{0, 2, "00"}, {7, 2, "07"}, {42, 2, "42"}, {123, 2, "123"}, {5, 5, "00005"}, {99999, 5, "99999"}, {2025, 4, "2025"},
	}
	for _, tt := range tests {
		if got := string(appendPadded(nil, tt.v, tt.width)); got != tt.want {
			t.Errorf("appendPadded(%d, %d) = %q, want %q", tt.v, tt.width, got, tt.want)
		}
	}
}

// BenchmarkPayload measures the cost of generating one event (payload and
// flat fields) in batches of the default maximum size, as add does.
func BenchmarkPayload(b *testing.B) {
	const size = 100
	now := time.Date(2025, 12, 5, 12, 0, 0, 0, time.UTC)
	g := generator{rng: rand.New(rand.NewPCG(1, 2)), now: func() time.Time { return now }}
	buf := new(batch)
	g.fill(buf, size) // grow the buffers first
	var bytes int
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		g.fill(buf, size)
		bytes += len(buf.buf)
	}
	b.StopTimer()
	if len(buf.events) != size || bytes < b.N*size*800 {
		b.Fatalf("generated %d events, %d bytes in %d batches: not what is being measured", len(buf.events), bytes, b.N)
	}
	n := float64(b.N) * size
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/event")
	b.ReportMetric(float64(bytes)/n, "B/event")
}
