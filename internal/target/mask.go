package target

import "github.com/txnbench/txnbench/internal/redact"

// MaskURL and MaskPassword are redact.URL and redact.Password, for the
// packages that already speak to target; packages that must not link the
// drivers (report) call redact directly.
var (
	MaskURL      = redact.URL
	MaskPassword = redact.Password
)
