// Package target is the driver-neutral face of a database: Target, Conn,
// Pool and the optional session capabilities (ScriptConn, Copier,
// BackendPIDer), the dialect and what it supports (Capabilities), database
// specs, and stable error classes. Open hands a spec to the driver
// registered for its kind (Register): internal/target/pg and
// internal/target/sqlite register themselves, and importing
// internal/target/drivers links both. What only some drivers do beyond
// Driver (ConnectMessage, ConnInfo, Password) target asks the driver for
// by type assertion (optional.go). target imports no driver; everything
// above it talks to Conn and tests Capabilities, never dialect names.
package target
