package fault

import (
	"strings"
	"testing"
	"time"
)

func TestParse(t *testing.T) {
	cases := []struct {
		in   string
		want Spec
		err  string
	}{
		{in: "10s:kill-server", want: Spec{At: 10 * time.Second, Kind: KillServer}},
		{in: "10s:kill-server:2s", want: Spec{At: 10 * time.Second, Kind: KillServer, Arg: "2s", Delay: 2 * time.Second}},
		{in: "1m:restart-server", want: Spec{At: time.Minute, Kind: RestartServer}},
		{in: "0s:hang-server:15s", want: Spec{Kind: HangServer, Arg: "15s", For: 15 * time.Second}},
		{in: "5s:terminate-backends", want: Spec{At: 5 * time.Second, Kind: TerminateBackends}},
		{in: "5s:kill-pooler", want: Spec{At: 5 * time.Second, Kind: KillPooler}},
		{in: "5s:kill-pooler:0s", want: Spec{At: 5 * time.Second, Kind: KillPooler, Arg: "0s", Restart: true}},
		{in: "5s:latency:50ms", want: Spec{At: 5 * time.Second, Kind: Latency, Arg: "50ms", Delay: 50 * time.Millisecond}},
		{in: "5s:latency:50ms/3s", want: Spec{At: 5 * time.Second, Kind: Latency, Arg: "50ms/3s", Delay: 50 * time.Millisecond, For: 3 * time.Second}},
		{in: "5s:blackhole:2s", want: Spec{At: 5 * time.Second, Kind: Blackhole, Arg: "2s", For: 2 * time.Second}},
		{in: "5s:reset", want: Spec{At: 5 * time.Second, Kind: Reset}},
		{in: "kill-server", err: "want AT:KIND[:ARG]"},
		{in: "-1s:kill-server", err: "is not a duration from the window's start"},
		{in: "5s:nuke", err: `unknown fault "nuke"`},
		{in: "5s:kill-server:", err: "empty ARG"},
		{in: "5s:kill-server:later", err: `"later" is not a duration`},
		{in: "5s:reset:1s", err: "reset takes no ARG"},
		{in: "5s:hang-server", err: "needs how long it lasts"},
		{in: "5s:blackhole:0s", err: "does nothing"},
		{in: "5s:latency", err: "needs the delay to add"},
		{in: "5s:latency:1ms/0s", err: "does nothing"},
	}
	for _, c := range cases {
		got, err := Parse(c.in)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("Parse(%q) error %v, want one saying %q", c.in, err, c.err)
		case c.err == "" && err != nil:
			t.Errorf("Parse(%q): %v", c.in, err)
		case c.err == "" && got != c.want:
			t.Errorf("Parse(%q) = %+v, want %+v", c.in, got, c.want)
		case c.err == "" && got.String() != c.in && !strings.HasPrefix(c.in, "1m") && !strings.HasPrefix(c.in, "0s"):
			t.Errorf("Parse(%q).String() = %q", c.in, got.String())
		}
	}
}

func TestCheck(t *testing.T) {
	parse := func(v string) Spec {
		s, err := Parse(v)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		faults  []string
		window  time.Duration
		poolers int
		err     string
	}{
		{faults: []string{"1s:reset", "9s:kill-server:1s", "5s:latency:5ms"}, window: 10 * time.Second},
		{faults: []string{"10s:reset"}, window: 10 * time.Second, err: "not inside the 10s window"},
		{faults: []string{"8s:hang-server:3s"}, window: 10 * time.Second, err: "ends at 11s, after the 10s window"},
		{faults: []string{"1s:reset"}, err: "--fault with --iterations"},
		{faults: []string{"4s:blackhole:1s", "3s:blackhole:3s"}, window: 10 * time.Second, err: "--fault 4s:blackhole:1s starts while --fault 3s:blackhole:3s is going on (until 6s)"},
		{faults: []string{"3s:latency:5ms", "8s:blackhole:1s"}, window: 10 * time.Second, err: "is going on (until 10s): one fault at a time on the same thing; give --fault 3s:latency:5ms an earlier end (DELAY/FOR)"},
		{faults: []string{"3s:reset", "3s:latency:1ms/1s"}, window: 10 * time.Second, err: "start it at 4s or later"},
		{faults: []string{"3s:kill-pooler", "9s:kill-pooler:1s"}, window: 10 * time.Second, err: "is going on (until 10s): one fault at a time on the same thing; give --fault 3s:kill-pooler an earlier end (how long it stays down)"},
		{faults: []string{"3s:kill-pooler", "4s:kill-pooler:1s", "6s:kill-pooler:1s"}, window: 10 * time.Second, poolers: 2, err: "--fault 6s:kill-pooler:1s starts while --fault 3s:kill-pooler is going on (until 10s)"},
		{faults: []string{"3s:kill-pooler:1s", "4s:kill-pooler:3s", "5s:kill-pooler:1s", "6s:kill-pooler:1s"}, window: 10 * time.Second, poolers: 2, err: "--fault 6s:kill-pooler:1s starts while --fault 4s:kill-pooler:3s is going on (until 7s)"},
		{faults: []string{"3s:kill-pooler", "4s:kill-pooler:1s", "6s:kill-pooler:1s"}, window: 10 * time.Second, poolers: 3},
		{faults: []string{"5s:hang-server:5s", "9s:kill-server"}, window: 10 * time.Second, err: "give --fault 5s:hang-server:5s an earlier end (a shorter ARG)"},
		{faults: []string{"3s:kill-server:2s", "4s:hang-server:1s"}, window: 10 * time.Second, err: "is going on (until 5s)"},
		{faults: []string{"3s:blackhole:1s", "4s:blackhole:1s", "5s:kill-server:1s", "6s:reset"}, window: 10 * time.Second},
		// terminate-backends is on the server too: not while it is down,
		// hung or restarting, nor at the same instant
		{faults: []string{"3s:kill-server:4s", "5s:terminate-backends"}, window: 10 * time.Second, err: "--fault 5s:terminate-backends starts while --fault 3s:kill-server:4s is going on (until 7s)"},
		{faults: []string{"3s:hang-server:2s", "4s:terminate-backends"}, window: 10 * time.Second, err: "is going on (until 5s)"},
		{faults: []string{"3s:restart-server", "3s:terminate-backends"}, window: 10 * time.Second, err: "start it at 4s or later"},
		{faults: []string{"3s:terminate-backends", "3s:terminate-backends"}, window: 10 * time.Second, err: "start it at 4s or later"},
		{faults: []string{"3s:kill-server:2s", "5s:terminate-backends", "6s:restart-server", "8s:blackhole:1s"}, window: 10 * time.Second},
		{window: 0},
	}
	for _, c := range cases {
		var specs []Spec
		for _, f := range c.faults {
			specs = append(specs, parse(f))
		}
		err := Check(specs, c.window, c.poolers)
		if (c.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.err)) {
			t.Errorf("Check(%v, %s) = %v, want %q", c.faults, c.window, err, c.err)
		}
	}
}

// FuzzParse: Parse never panics, and what it accepts prints back to a
// value it reads the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"10s:kill-server:2s", "5s:latency:50ms/3s", "1s:reset", "x", "1s:hang-server:", "::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		s, err := Parse(v)
		if err != nil {
			return
		}
		again, err := Parse(s.String())
		if err != nil || again != s {
			t.Errorf("Parse(%q) = %+v, but its String %q reads %+v, %v", v, s, s.String(), again, err)
		}
	})
}
