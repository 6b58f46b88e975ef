package ccm

import (
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/hcloudlab/hcloud-ccm/ccm/robotclient"
)

// RobotConfig is how the CCM reaches the Robot webservice for dedicated
// servers, with the official CCM's variables and defaults.
type RobotConfig struct {
	Enabled        bool   // ROBOT_ENABLED
	User, Password string // ROBOT_USER, ROBOT_PASSWORD, or their _FILE forms
	// UserFile and PasswordFile are the _FILE forms the credentials came
	// from: read again while the CCM runs (credentials.go).
	UserFile, PasswordFile string
	// Endpoint is the webservice's base URL (ROBOT_ENDPOINT, this CCM's
	// own, e.g. fakecloud's http://127.0.0.1:8080/robot).
	Endpoint string
	// CacheTimeout is how old the server listing may be
	// (ROBOT_CACHE_TIMEOUT; unset or 0: 5 min).
	CacheTimeout time.Duration
	// RateLimitWait is how long nothing is sent after RATE_LIMIT_EXCEEDED
	// (ROBOT_RATE_LIMIT_WAIT_TIME; unset or 0: 5 min here, where the
	// official CCM does not wait at all).
	RateLimitWait time.Duration
	// ForwardInternalIPs keeps the InternalIPs the kubelet reports on a
	// dedicated Node (ROBOT_FORWARD_INTERNAL_IPS, default true with Robot).
	ForwardInternalIPs bool
}

// Credentials says whether the webservice can be asked at all; without
// them dedicated Nodes are only load balancer targets by their InternalIP,
// as in the official CCM.
func (c RobotConfig) Credentials() bool { return c.User != "" && c.Password != "" }

// loadRobot reads the ROBOT_* variables. readFile reads the _FILE forms.
func (r *envReader) loadRobot(readFile func(string) ([]byte, error)) RobotConfig {
	c := RobotConfig{
		Enabled:            r.boolean("ROBOT_ENABLED", false),
		Endpoint:           r.str("ROBOT_ENDPOINT", robotclient.DefaultEndpoint),
		CacheTimeout:       r.durationOrZero("ROBOT_CACHE_TIMEOUT", 5*time.Minute, time.Second, 24*time.Hour),
		RateLimitWait:      r.durationOrZero("ROBOT_RATE_LIMIT_WAIT_TIME", 5*time.Minute, time.Second, 24*time.Hour),
		ForwardInternalIPs: r.boolean("ROBOT_FORWARD_INTERNAL_IPS", true),
	}
	c.User = r.secret("ROBOT_USER", readFile)
	c.Password = r.secret("ROBOT_PASSWORD", readFile)
	c.UserFile, c.PasswordFile = r.files["ROBOT_USER"], r.files["ROBOT_PASSWORD"]
	r.url("ROBOT_ENDPOINT", c.Endpoint, robotclient.DefaultEndpoint)
	if !c.Enabled {
		c.ForwardInternalIPs = false
		return c
	}
	if (c.User == "") != (c.Password == "") {
		r.errs = append(r.errs, errors.New("ROBOT_USER and ROBOT_PASSWORD (or their _FILE forms): set both, or neither for load balancer targets only"))
	}
	r.errs = append(r.errs, checkRobotCredentials(c.User, c.Password)...)
	return c
}

// checkRobotCredentials refuses what HTTP basic authentication cannot
// send. Messages never include the credentials.
func checkRobotCredentials(user, password string) []error {
	var errs []error
	if strings.Contains(user, ":") || strings.ContainsFunc(user, unicode.IsControl) {
		errs = append(errs, errors.New("ROBOT_USER (or ROBOT_USER_FILE): HTTP basic authentication cannot send a user with a colon or control characters; the webservice user is named like #ws+abc"))
	}
	if strings.ContainsFunc(password, unicode.IsControl) {
		errs = append(errs, errors.New("ROBOT_PASSWORD (or ROBOT_PASSWORD_FILE): contains control characters; a password is one line of printable characters"))
	}
	return errs
}

// secret reads name, or when it is empty the file name_FILE names,
// trimmed.
func (r *envReader) secret(name string, readFile func(string) ([]byte, error)) string {
	v := strings.TrimSpace(r.getenv(name))
	if file := strings.TrimSpace(r.getenv(name + "_FILE")); v == "" && file != "" {
		data, err := readFile(file)
		if err != nil {
			r.errs = append(r.errs, fmt.Errorf("%s_FILE=%q: cannot read it: %v", name, file, errors.Unwrap(err)))
			return ""
		}
		v = strings.TrimSpace(string(data))
		if r.files == nil {
			r.files = map[string]string{}
		}
		r.files[name] = file
	}
	return v
}

// durationOrZero is duration, where 0 means the default, as the official
// CCM reads ROBOT_CACHE_TIMEOUT.
func (r *envReader) durationOrZero(name string, def, lo, hi time.Duration) time.Duration {
	if v := strings.TrimSpace(r.getenv(name)); v == "0" {
		return def
	}
	return r.within(name, def, lo, hi)
}

// String describes the Robot settings without the credentials.
func (c RobotConfig) String() string {
	if !c.Enabled {
		return "robot=off"
	}
	return fmt.Sprintf("robot=on endpoint=%s credentials=%v cache_timeout=%s rate_limit_wait=%s forward_internal_ips=%v",
		c.Endpoint, c.Credentials(), c.CacheTimeout, c.RateLimitWait, c.ForwardInternalIPs)
}
