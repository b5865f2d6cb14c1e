package pg

import (
	"bytes"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/txnbench/txnbench/internal/target"
)

// TestWireIsPgproto3 holds wire's messages to the bytes pgproto3 encodes
// for the same statement in each mode, parameters NULL, empty and not.
func TestWireIsPgproto3(t *testing.T) {
	params := [][]byte{[]byte("42"), nil, {}, []byte("x'y")}
	enc := func(msgs ...pgproto3.FrontendMessage) []byte {
		var b []byte
		for _, m := range msgs {
			var err error
			if b, err = m.Encode(b); err != nil {
				t.Fatal(err)
			}
		}
		return b
	}
	sql := "SELECT abalance FROM pgbench_accounts WHERE aid = $1"
	for _, tc := range []struct {
		name string
		w    func(*wire)
		want []byte
	}{
		{"simple", func(w *wire) { w.query("SELECT 1") }, enc(&pgproto3.Query{String: "SELECT 1"})},
		{"extended", func(w *wire) { w.parse(sql); w.bind("", params); w.describePortal(); w.execute(); w.sync() },
			enc(&pgproto3.Parse{Query: sql}, &pgproto3.Bind{Parameters: params}, &pgproto3.Describe{ObjectType: 'P'},
				&pgproto3.Execute{}, &pgproto3.Sync{})},
		{"prepared", func(w *wire) { w.bind("P_0", params); w.execute(); w.sync() },
			enc(&pgproto3.Bind{PreparedStatement: "P_0", Parameters: params}, &pgproto3.Execute{}, &pgproto3.Sync{})},
		{"no parameters", func(w *wire) { w.bind("P_1", nil); w.execute(); w.sync() },
			enc(&pgproto3.Bind{PreparedStatement: "P_1"}, &pgproto3.Execute{}, &pgproto3.Sync{})},
	} {
		var w wire
		tc.w(&w)
		if !bytes.Equal(w.buf, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, w.buf, tc.want)
		}
	}
}

// TestWireSendErrors: a statement too large to encode is not written and
// reads as pgproto3's (safe to retry: nothing was sent); a failed write
// is a lost connection.
func TestWireSendErrors(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	var w wire
	w.bind("P_0", make([][]byte, 0x10000))
	err := w.send(a)
	if err == nil || !strings.Contains(err.Error(), "write failed: too many parameters") || target.CommitOutcomeUnknown(err) {
		t.Errorf("too many parameters: %v (commit outcome unknown: %v)", err, target.CommitOutcomeUnknown(err))
	}
	if len(w.buf) != 0 {
		t.Errorf("the buffer keeps %d bytes after a failed send", len(w.buf))
	}
	a.Close()
	w.sync()
	err = w.send(a)
	if !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "closed pipe") {
		t.Errorf("write on a closed connection: %v", err)
	}
}
