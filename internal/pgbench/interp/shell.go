package interp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/txnbench/txnbench/internal/pgbench/cscan"
	"github.com/txnbench/txnbench/internal/pgbench/expr"
	"github.com/txnbench/txnbench/internal/pgbench/script"
)

// shellCommandSize is pgbench's SHELL_COMMAND_SIZE: the joined command
// must stay below it.
const shellCommandSize = 256

// shell runs \shell or \setshell as pgbench's runShellCommand does: the
// arguments joined by spaces (":var" replaced by the variable, "::x"
// giving ":x"), run by /bin/sh -c. \setshell reads the first line of the
// output (at most 63 bytes), which must be an integer.
func (c *Client) shell(ctx context.Context, cmd *script.Command, cc *compiled) error {
	name := cmd.Meta.String()
	fail := func(cause error) error {
		return c.commandFailed(name, "execution of meta-command failed", cause)
	}
	var b strings.Builder
	for i, a := range cc.shell {
		arg := a.text
		if a.slot >= 0 {
			if !c.vars[a.slot].defined {
				return fail(fmt.Errorf("%s: undefined variable %q", name, a.text))
			}
			arg = string(c.text(a.slot))
		}
		extra := 0
		if i > 0 {
			extra = 1
		}
		if b.Len()+len(arg)+extra >= shellCommandSize-1 {
			return fail(fmt.Errorf("%s: shell command is too long", name))
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(arg)
	}
	var stderr io.Writer = io.Discard
	if c.cfg.Stderr != nil {
		stderr = c.cfg.Stderr
	}
	sh := exec.CommandContext(ctx, "/bin/sh", "-c", b.String())
	sh.Stderr = stderr
	if cmd.Meta == script.Shell {
		// pgbench's system(): the output goes where pgbench's goes.
		sh.Stdout = io.Discard
		if c.cfg.Stdout != nil {
			sh.Stdout = c.cfg.Stdout
		}
		if err := sh.Run(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fail(fmt.Errorf("%s: could not launch shell command", name))
		}
		return nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return fail(fmt.Errorf("%s: could not launch shell command", name))
	}
	sh.Stdout = pw
	if err := sh.Start(); err != nil {
		pr.Close()
		pw.Close()
		return fail(fmt.Errorf("%s: could not launch shell command", name))
	}
	pw.Close()
	res, readErr := firstLine(pr, 63)
	pr.Close() // as pclose: a writer that goes on gets SIGPIPE
	waitErr := sh.Wait()
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return fail(fmt.Errorf("%s: could not close shell command", name))
	}
	if readErr != nil || res == "" {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fail(fmt.Errorf("%s: could not read result of shell command", name))
	}
	v, ok := strtol(res)
	if !ok {
		return fail(fmt.Errorf("%s: shell command must return an integer (not \"%s\")", name, res))
	}
	if cc.set < 0 {
		return fail(fmt.Errorf("setshell: invalid variable name: %q", cmd.Var))
	}
	c.putValue(cc.set, expr.IntValue(int64(int32(v)))) // (int) strtol(...)
	return nil
}

// firstLine reads as fgets does: up to and including a newline, at most
// max bytes.
func firstLine(r io.Reader, max int) (string, error) {
	var buf []byte
	var one [1]byte
	for len(buf) < max {
		n, err := r.Read(one[:])
		if n == 1 {
			buf = append(buf, one[0])
			if one[0] == '\n' {
				break
			}
		}
		if err != nil {
			if len(buf) > 0 {
				break
			}
			return "", err
		}
	}
	return string(buf), nil
}

// strtol checks \setshell's output as pgbench does: strtol's number
// (leading white space, a sign, digits), then only white space. It
// returns strtol's value, which saturates on overflow.
func strtol(s string) (int64, bool) {
	v, end, _ := cscan.Strtol(s)
	for end < len(s) && cscan.IsSpace(s[end]) {
		end++
	}
	return v, end == len(s)
}
