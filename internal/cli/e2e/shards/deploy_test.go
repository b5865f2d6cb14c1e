package shards

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/txnbench/txnbench/internal/cli/clitest"
	"github.com/txnbench/txnbench/internal/exitcode"
	"gopkg.in/yaml.v3"
)

// kubeJob is what the docs rely on in a Job manifest.
type kubeJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Spec       struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Containers    []struct {
					Image   string   `yaml:"image"`
					Command []string `yaml:"command"`
					Args    []string `yaml:"args"`
					Env     []struct {
						Name      string `yaml:"name"`
						ValueFrom struct {
							SecretKeyRef struct {
								Name string `yaml:"name"`
								Key  string `yaml:"key"`
							} `yaml:"secretKeyRef"`
						} `yaml:"valueFrom"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// TestKubernetesManifests checks deploy/kubernetes: each manifest against
// Kubernetes' schema (kubernetes-validate, installed from PyPI by CI; it
// carries the schemas, so it needs no network), then the fields
// docs/scale-out.md relies on: Jobs whose one container runs the image's
// entry point with the database URL from a Secret; the shards' Job
// Indexed, with completions, parallelism and --shards equal; and their
// arguments accepted by txnbench (the run gets as far as connecting).
func TestKubernetesManifests(t *testing.T) {
	files, _ := filepath.Glob(clitest.Repo(t, "deploy/kubernetes", "*.yaml"))
	if len(files) < 2 {
		t.Fatalf("manifests: %v", files)
	}
	if v, err := exec.LookPath("kubernetes-validate"); err == nil {
		if out, err := exec.Command(v, append([]string{"--strict", "--quiet"}, files...)...).CombinedOutput(); err != nil {
			t.Errorf("kubernetes-validate: %v\n%s", err, out)
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("CI needs kubernetes-validate (pip install kubernetes-validate) to check the manifests")
	} else {
		t.Log("kubernetes-validate missing: the manifests' schema is not checked, only their fields")
	}
	dockerfile, err := os.ReadFile(clitest.Repo(t, "deploy/kubernetes", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ENTRYPOINT \["([^"]+)"\]`).FindSubmatch(dockerfile)
	if m == nil || !strings.Contains(string(dockerfile), "entrypoint.sh "+string(m[1])) {
		t.Fatalf("the Dockerfile does not install entrypoint.sh as its ENTRYPOINT")
	}
	entry := string(m[1])
	commands := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var j kubeJob
		if err := yaml.Unmarshal(b, &j); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		name := filepath.Base(f)
		pod := j.Spec.Template.Spec
		if j.APIVersion != "batch/v1" || j.Kind != "Job" || len(pod.Containers) != 1 || pod.RestartPolicy != "Never" || j.Spec.BackoffLimit == nil || *j.Spec.BackoffLimit != 0 {
			t.Errorf("%s: not a batch/v1 Job of one container, never restarted nor retried", name)
			continue
		}
		c := pod.Containers[0]
		if !slices.Equal(c.Command, []string{entry}) {
			t.Errorf("%s: command %q, want the image's entry point %s", name, c.Command, entry)
		}
		fromSecret := false
		for _, e := range c.Env {
			fromSecret = fromSecret || e.Name == "TXNBENCH_DB" && e.ValueFrom.SecretKeyRef.Name != "" && e.ValueFrom.SecretKeyRef.Key != ""
		}
		if !fromSecret {
			t.Errorf("%s: TXNBENCH_DB does not come from a Secret", name)
		}
		if len(c.Args) < 2 {
			t.Errorf("%s: args %q", name, c.Args)
			continue
		}
		commands[c.Args[0]] = true
		env := []string{"TXNBENCH_CLI_MAIN=1"}
		if c.Args[0] == "run" {
			i := slices.Index(c.Args, "--shards")
			if i < 0 || i+1 >= len(c.Args) {
				t.Errorf("%s: the run has no --shards N", name)
				continue
			}
			n, _ := strconv.Atoi(c.Args[i+1])
			if j.Spec.CompletionMode != "Indexed" || j.Spec.Completions == nil || j.Spec.Parallelism == nil || *j.Spec.Completions != n || *j.Spec.Parallelism != n {
				t.Errorf("%s: want an Indexed Job with completions and parallelism %d (--shards)", name, n)
			}
			env = append(env, "JOB_COMPLETION_INDEX=0")
		}
		// Nothing listens on port 1: flags txnbench accepts end in a
		// failure to connect (exit 1), a usage error in exit 2.
		cmd := exec.Command(os.Args[0], append(c.Args, "--db", "postgres://u:p@127.0.0.1:1/db")...)
		cmd.Env = append(os.Environ(), env...)
		out, _ := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); code != exitcode.Failure || !strings.Contains(string(out), "connection refused") {
			t.Errorf("%s: txnbench %s: exit %d, want %d (connection refused):\n%s", name, strings.Join(c.Args, " "), code, exitcode.Failure, out)
		}
	}
	if !commands["run"] || !commands["init"] {
		t.Errorf("want an init Job and a run Job, have %v", commands)
	}
}

// TestEntrypointPassesStop: a pod is stopped with SIGTERM to its entry
// point; txnbench gets it, ends the run and saves what it measured, and
// the entry point prints the result to the log and exits with txnbench's
// status (130). The shell ended at once and left txnbench running on.
func TestEntrypointPassesStop(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command("sh", append([]string{clitest.Repo(t, clitest.Entrypoint), "run", "train-events", "--duration", "5m", "--progress", "200ms"}, clitest.Quick...)...)
	cmd.Env = append(os.Environ(), "TXNBENCH_CLI_MAIN=1", "TXNBENCH_BIN="+os.Args[0], "TXNBENCH_DB=sqlite:"+filepath.Join(dir, "db"), "RESULTS="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group: a txnbench left running is killed at the end
	stdout, stderr := &clitest.Buffer{}, &clitest.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	clitest.WaitFor(t, stderr, 0, `\| cycle [1-9]`)
	cmd.Process.Signal(syscall.SIGTERM)
	clitest.WaitExit(t, cmd, 30*time.Second, stderr)
	if code := cmd.ProcessState.ExitCode(); code != exitcode.Interrupted {
		t.Errorf("exit %d, want %d\nstderr:\n%s", code, exitcode.Interrupted, stderr.String())
	}
	if !strings.Contains(stdout.String(), "### txnbench result shard-0.json begin") || !strings.Contains(stdout.String(), "### txnbench result shard-0.json end") {
		t.Errorf("no result in the log:\n%s", stdout.String())
	}
}
