package clitest

import (
	"encoding/json"
	"net"
	"os"
	"time"

	"github.com/txnbench/txnbench/internal/testutil"
)

// ImpostorReport is what an impostor run by the test binary saw (with
// TXNBENCH_IMPOSTOR_PORT set; see Main).
type ImpostorReport struct {
	Bound    bool                       `json:"bound"`
	Startups int                        `json:"startups"`
	Sent     []testutil.ImpostorMessage `json:"sent"`
}

// impostorMain is the test binary as another local user's fake server
// (TXNBENCH_IMPOSTOR_PORT): it tries to bind 127.0.0.1:PORT every 2 ms
// until it gets the port (the service on it went down), serves
// testutil.Impostor on it until three clients came or for
// TXNBENCH_IMPOSTOR_HOLD at most, asking for a cleartext password, an MD5
// hash or nothing in turn, then lets the port go and prints what it saw as
// JSON.
func impostorMain(port string) int {
	hold, err := time.ParseDuration(os.Getenv("TXNBENCH_IMPOSTOR_HOLD"))
	if err != nil {
		return 2
	}
	var rep ImpostorReport
	deadline := time.Now().Add(5 * time.Minute)
	for time.Now().Before(deadline) {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
		if err != nil {
			time.Sleep(2 * time.Millisecond)
			continue
		}
		rep.Bound = true
		im := testutil.ServeImpostor(ln, []int{testutil.AuthCleartext, testutil.AuthMD5, testutil.AuthOk})
		// Three clients (one of each request) are enough: letting go
		// early leaves the restart its port however slow the machine.
		for end := time.Now().Add(hold); time.Now().Before(end) && im.Startups() < 3; {
			time.Sleep(10 * time.Millisecond)
		}
		ln.Close()
		time.Sleep(200 * time.Millisecond) // the last clients' messages
		rep.Startups, rep.Sent = im.Startups(), im.Sent()
		break
	}
	_ = json.NewEncoder(os.Stdout).Encode(rep)
	return 0
}
