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

// Doctor runs `ccm doctor -o json` on the cluster with a cluster-admin
// kubeconfig and the CCM's environment, then env (later entries win), and
// returns its report and exit status.
func (e *Env) Doctor(ctx context.Context, env []string, args ...string) (doctor.Report, int, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.opts.CCM, append([]string{"doctor", "-o", "json", "--kubeconfig", e.AdminConf}, args...)...)
	cmd.Env = append(append(os.Environ(), e.ccmEnv()...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		return doctor.Report{}, 0, err
	}
	var rep doctor.Report
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		return rep, code, fmt.Errorf("ccm doctor (exit %d): %w; stderr: %s", code, err, stderr.String())
	}
	return rep, code, nil
}
