package localdb

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// listeningSockets returns the sockets listening on TCP port (IPv4 or
// IPv6), from /proc/net/tcp and tcp6: "socket:[INODE]" (as /proc/PID/fd
// links name them) to the uid that owns each; nil when /proc cannot tell.
func listeningSockets(port int) map[string]int {
	suffix := fmt.Sprintf(":%04X", port)
	var socks map[string]int
	for _, name := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		if socks == nil {
			socks = map[string]int{}
		}
		for _, line := range strings.Split(string(b), "\n") {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			f := strings.Fields(line)
			if len(f) >= 10 && strings.HasSuffix(f[1], suffix) && f[3] == "0A" {
				uid, _ := strconv.Atoi(f[7])
				socks["socket:["+f[9]+"]"] = uid
			}
		}
	}
	return socks
}

// portHolder names the process listening on TCP port: "pid 123 (cmd) of
// user nobody", or "a process of user nobody" when its descriptors cannot
// be read (another user's, unless we are root); "" when nothing listens
// there or /proc cannot tell.
func portHolder(port int) string {
	socks := listeningSockets(port)
	for sock, uid := range socks {
		who := strconv.Itoa(uid)
		if u, err := user.LookupId(who); err == nil {
			who = u.Username
		}
		if pid := socketOwner(sock); pid > 0 {
			cmd := "?"
			if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline"); err == nil && len(b) > 0 {
				cmd = strings.Join(strings.Fields(strings.ReplaceAll(string(b), "\x00", " ")), " ")
				if len(cmd) > 80 {
					cmd = cmd[:77] + "..."
				}
			}
			return fmt.Sprintf("pid %d (%s) of user %s", pid, cmd, who)
		}
		return "a process of user " + who
	}
	return ""
}

// socketOwner returns a process holding sock ("socket:[INODE]") open, or 0
// when none can be found.
func socketOwner(sock string) int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", e.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && link == sock {
				return pid
			}
		}
	}
	return 0
}
