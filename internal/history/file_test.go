package history

import (
	"bytes"
	"encoding/binary"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestSaveLoad(t *testing.T) {
	for _, model := range []Model{ListAppend, Register} {
		h := simulate(simConfig{model: model, txns: 300, keys: 3, txnLen: 4, concurrency: 4, rotate: 100, seed: 3})
		path := filepath.Join(t.TempDir(), "h")
		var b bytes.Buffer
		if err := Save(&b, h); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		// The same history, checked the same (offsets may be laid out anew).
		if !reflect.DeepEqual(Check(got, Options{Realtime: true}), Check(h, Options{Realtime: true})) {
			t.Errorf("%s: the loaded history checks differently", model)
		}
		var e1, e2 bytes.Buffer
		WriteEDN(&e1, h)
		WriteEDN(&e2, got)
		if e1.String() != e2.String() {
			t.Errorf("%s: the loaded history exports differently", model)
		}
	}
}

func TestLoadRefusesWhatIsNotAHistory(t *testing.T) {
	dir := t.TempDir()
	var good bytes.Buffer
	Save(&good, build(ListAppend, ok(w(1, 1), r(1, 1))))
	files := map[string][]byte{
		"json":       []byte(`{"ops": []}`),
		"truncated":  good.Bytes()[:good.Len()-1],
		"trailing":   append(bytes.Clone(good.Bytes()), 0),
		"huge count": append([]byte(magic), 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0, 0),
	}
	for name, b := range files {
		path := filepath.Join(dir, name)
		os.WriteFile(path, b, 0o600)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), "is not a txnbench history") || !strings.HasSuffix(err.Error(), "give a file txnbench saved with --history FILE") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory: %v", err)
	}
}

func TestWriteEDN(t *testing.T) {
	l := NewLog(3, 2, 2, 2)
	l.Begin(1000)
	l.Write(1, 5)
	l.ReadList(1, []int64{4, 5})
	l.End(1500, OK)
	l.Begin(1600)
	l.Write(2, 9)
	l.End(1700, Fail)
	l.Begin(1800) // lost at commit: :info, and process 3 retires
	l.Write(3, 1)
	l.End(1900, Info)
	l.Begin(1900)
	l.Write(3, 2)
	l.End(1900, OK) // an instant txn: invoked before it completes
	l.Begin(2000)   // never ended: :info after everything
	l.ReadList(2, nil)
	other := NewLog(1, 1, 1, 1)
	other.Begin(1950)
	other.ReadList(3, []int64{2})
	other.End(2100, OK)
	var b bytes.Buffer
	if err := WriteEDN(&b, Merge(ListAppend, l, other)); err != nil {
		t.Fatal(err)
	}
	want := `{:type :invoke, :f :txn, :value [[:append 1 5] [:r 1 nil]], :process 3, :time 0, :index 0}
{:type :ok, :f :txn, :value [[:append 1 5] [:r 1 [4 5]]], :process 3, :time 500, :index 1}
{:type :invoke, :f :txn, :value [[:append 2 9]], :process 3, :time 600, :index 2}
{:type :fail, :f :txn, :value [[:append 2 9]], :process 3, :time 700, :index 3}
{:type :invoke, :f :txn, :value [[:append 3 1]], :process 3, :time 800, :index 4}
{:type :info, :f :txn, :value [[:append 3 1]], :process 3, :time 900, :index 5}
{:type :invoke, :f :txn, :value [[:append 3 2]], :process 7, :time 900, :index 6}
{:type :ok, :f :txn, :value [[:append 3 2]], :process 7, :time 900, :index 7}
{:type :invoke, :f :txn, :value [[:r 3 nil]], :process 1, :time 950, :index 8}
{:type :invoke, :f :txn, :value [[:r 2 nil]], :process 7, :time 1000, :index 9}
{:type :ok, :f :txn, :value [[:r 3 [2]]], :process 1, :time 1100, :index 10}
{:type :info, :f :txn, :value [[:r 2 nil]], :process 7, :time 1100, :index 11}
`
	if b.String() != want {
		t.Errorf("EDN:\n%s\nwant:\n%s", b.String(), want)
	}
	var reg bytes.Buffer
	WriteEDN(&reg, build(Register, ok(w(1, 2), r(1, 2), r(3))))
	if got := strings.Split(reg.String(), "\n")[1]; !strings.Contains(got, ":value [[:w 1 2] [:r 1 2] [:r 3 nil]]") {
		t.Errorf("register EDN: %s", got)
	}
}

// TestRecordAllocatesNothing: once a Log is sized for the run, a
// transaction's recording allocates nothing.
func TestRecordAllocatesNothing(t *testing.T) {
	l := NewLog(0, 200, 4, 8)
	read := []int64{1, 2, 3}
	if n := testing.AllocsPerRun(100, func() { recordOne(l, read) }); n != 0 {
		t.Errorf("%v allocations per transaction", n)
	}
}

func recordOne(l *Log, read []int64) {
	l.Begin(1)
	l.Write(1, 4)
	l.ReadList(1, read)
	l.ReadValue(2, 5, true)
	l.End(2, OK)
}

// FuzzDecode: whatever the bytes, Decode refuses them or returns a
// history that is well formed and checks without a panic.
func FuzzDecode(f *testing.F) {
	for _, model := range []Model{ListAppend, Register} {
		var b bytes.Buffer
		Save(&b, simulate(simConfig{model: model, txns: 20, keys: 2, txnLen: 3, concurrency: 2, rotate: 20, seed: 1}))
		f.Add(b.Bytes())
	}
	f.Add([]byte(magic))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := Decode(b)
		if err != nil {
			return
		}
		if err := h.Validate(); err != nil {
			t.Fatalf("Decode returned a history Validate refuses: %v", err)
		}
		Check(h, Options{Process: true, Realtime: true})
		WriteEDN(io.Discard, h)
	})
}

// TestDecodeAllocatesByTheFile: a file that claims as many transactions,
// micro-ops and values as it has bytes (all zeros after the counts) is
// refused having allocated a few times its size at most. Each count was
// held only to the bytes left, so such a file of 4 MB made Decode
// allocate 72 times that (32 bytes a Txn and an Op, 8 a value) before it
// found the file short: a crafted file of a few hundred MB took the
// machine's memory.
func TestDecodeAllocatesByTheFile(t *testing.T) {
	const n = 4 << 20
	b := append([]byte(magic), byte(ListAppend))
	for range 3 {
		b = binary.AppendUvarint(b, n)
	}
	b = append(b, make([]byte, n)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Decode(b)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a file of zeros claiming a record a byte decoded")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 10*uint64(len(b)) {
		t.Errorf("Decode allocated %d bytes for a file of %d (%.0f times): want at most 10 times", got, len(b), float64(got)/float64(len(b)))
	}
}
