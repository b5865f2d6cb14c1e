package result

// PoolerMember is one pooler of a fleet: the change of its counters over
// the run (the same names as Pooler.Stats).
type PoolerMember struct {
	Name  string           `json:"name"` // as the proxy names it: pooler1, pooler2, ...
	Stats map[string]int64 `json:"stats,omitempty"`
	Note  string           `json:"note,omitempty"`
}

// Proxy is the load balancer in front of a fleet of poolers and what it
// saw of each during the run.
type Proxy struct {
	Name    string        `json:"name"`             // e.g. "HAProxy 2.6.12"
	Detail  string        `json:"detail,omitempty"` // how it balances and checks
	Servers []ProxyServer `json:"servers,omitempty"`
	Note    string        `json:"note,omitempty"`
}

// ProxyServer is the proxy's view of one pooler over the run: counts are
// changes over the run, Status is the last one.
type ProxyServer struct {
	Name   string `json:"name"`
	Status string `json:"status"` // UP, DOWN, ...
	// Sessions are the client connections it was given.
	Sessions int64 `json:"sessions"`
	// ConnectErrors are connections to it that failed; Redispatched are
	// those the proxy then gave another pooler.
	ConnectErrors int64 `json:"connect_errors"`
	Redispatched  int64 `json:"redispatched"`
	// FailedChecks are health checks it failed; Downs how often that made
	// the proxy take it out.
	FailedChecks int64 `json:"failed_checks"`
	Downs        int64 `json:"downs"`
}
