package trainevents

import "testing"

// TestScanAllocs checks that reading a row's id and TEXT payload from
// database/sql values (SQLite) allocates nothing once the buffers grew.
func TestScanAllocs(t *testing.T) {
	var u textUUID
	var d docs
	const want = "0f8fad5b-d9cb-469f-a165-70867728950e"
	id, doc := any(want), any(`{"state":"NEW"}`)
	allocs := testing.AllocsPerRun(100, func() {
		d.reset()
		if err := u.Scan(id); err != nil {
			t.Fatal(err)
		}
		if err := d.Scan(doc); err != nil {
			t.Fatal(err)
		}
	})
	if got := string(appendUUID(nil, u)); allocs != 0 || got != want {
		t.Errorf("%v allocations per row, id %s", allocs, got)
	}
}
