package doctor

// Status is how a finding bears on the cluster.
type Status string

// The statuses, from good to bad.
const (
	OK   Status = "OK"
	Warn Status = "WARN" // works, but not as meant, or soon will not
	Fail Status = "FAIL" // broken: the CCM cannot do its job here
)

// Finding is the outcome of one check on one subject.
type Finding struct {
	Check   string `json:"check"`         // what was checked, such as token, node or route
	Status  Status `json:"status"`        // OK, WARN or FAIL
	Subject string `json:"subject"`       // what it is about, such as node/worker-1
	Message string `json:"message"`       // what was found, in one line
	Fix     string `json:"fix,omitempty"` // how to fix it, in one line; empty for OK
}

// Report is every finding in the order checked, and the cost of checking.
type Report struct {
	Findings []Finding `json:"findings"`
	// Requests is how many Hetzner Cloud API requests doctor sent.
	Requests int `json:"requests"`
}

// Failed reports whether any finding is FAIL.
func (r Report) Failed() bool { return r.Count(Fail) > 0 }

// Count is how many findings have status s.
func (r Report) Count(s Status) int {
	n := 0
	for _, f := range r.Findings {
		if f.Status == s {
			n++
		}
	}
	return n
}

// findings collects a run's findings.
type findings []Finding

func (fs *findings) ok(check, subject, msg string) {
	*fs = append(*fs, Finding{Check: check, Status: OK, Subject: subject, Message: msg})
}

func (fs *findings) warn(check, subject, msg, fix string) {
	*fs = append(*fs, Finding{Check: check, Status: Warn, Subject: subject, Message: msg, Fix: fix})
}

func (fs *findings) fail(check, subject, msg, fix string) {
	*fs = append(*fs, Finding{Check: check, Status: Fail, Subject: subject, Message: msg, Fix: fix})
}
