package mysql

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/txnbench/txnbench/internal/target"
)

// serverVersion matches the version at the start of SELECT version():
// "10.11.6-MariaDB-0+deb12u1", "8.0.36" or "8.4.2-log".
var serverVersion = regexp.MustCompile(`^(\d+)\.(\d+)(?:\.(\d+))?`)

// parseBanner derives the dialect from what SELECT version() returned.
// MariaDB names itself in the banner; a banner without its name is MySQL.
func parseBanner(banner string) target.Dialect {
	d := target.Dialect{Name: "MySQL", Banner: banner}
	if strings.Contains(banner, "MariaDB") {
		d.Name = "MariaDB"
	}
	var major, minor int
	if m := serverVersion.FindStringSubmatch(banner); m != nil {
		major, _ = strconv.Atoi(m[1])
		minor, _ = strconv.Atoi(m[2])
		d.Version = strings.TrimSuffix(m[0], ".")
	}
	atLeast := func(ma, mi int) bool { return major > ma || major == ma && minor >= mi }
	c := target.Capabilities{
		GeneratedColumns: true, // MariaDB 10.2, MySQL 5.7
		JSONType:         "JSON",
		UUIDType:         "CHAR(36)",
		TimestampType:    "DATETIME(6)",
		Now:              "CURRENT_TIMESTAMP(6)",
	}
	if d.Name == "MariaDB" {
		// SKIP LOCKED from 10.6; JSON is LONGTEXT checked as JSON, so no
		// binary JSON; a native UUID type from 10.7.
		c.SkipLocked = atLeast(10, 6)
		if atLeast(10, 7) {
			c.UUIDType = "UUID"
		}
	} else {
		// SKIP LOCKED and a binary JSON type with partial in-place updates
		// from 8.0.
		c.SkipLocked = atLeast(8, 0)
		c.JSONB = atLeast(8, 0)
	}
	d.Caps = c
	return d
}
