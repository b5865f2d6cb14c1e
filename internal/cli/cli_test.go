package cli

import (
	"bytes"
)

// runMain runs the command in this process. The end-to-end tests, which
// run it in child processes too, are in the packages under e2e (with
// their helpers in clitest, which cannot be imported here: it imports
// cli); the tests here need cli's unexported identifiers.
func runMain(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(args, &out, &errb)
	return code, out.String(), errb.String()
}
