package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/hcloudlab/hcloud-ccm/ccm/doctor"
)

// RunDoctor runs `ccm doctor` on the cluster with a cluster-admin
// kubeconfig and the CCM's environment, then env (later entries win), and
// returns what it printed and its exit status.
func (e *Env) RunDoctor(ctx context.Context, env []string, args ...string) (string, int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.opts.CCM, append([]string{"doctor", "--kubeconfig", e.AdminConf}, args...)...)
	cmd.Env = append(append(os.Environ(), e.ccmEnv()...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		if exit.ExitCode() > 1 {
			return stdout.String(), exit.ExitCode(), fmt.Errorf("ccm doctor: exit %d: %s", exit.ExitCode(), stderr.String())
		}
		return stdout.String(), exit.ExitCode(), nil
	case err != nil:
		return "", 0, err
	}
	return stdout.String(), 0, nil
}

// Doctor is RunDoctor with -o json, decoded.
func (e *Env) Doctor(ctx context.Context, env []string, args ...string) (doctor.Report, int, error) {
	out, code, err := e.RunDoctor(ctx, env, append([]string{"-o", "json"}, args...)...)
	if err != nil {
		return doctor.Report{}, code, err
	}
	var rep doctor.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		return rep, code, fmt.Errorf("ccm doctor (exit %d): %w", code, err)
	}
	return rep, code, nil
}
