package ccm

import "time"

// The bounds of a call to the cloud API. An attempt (connecting, sending,
// reading the whole answer) ends after AttemptTimeout; hcloud-go repeats
// one that timed out, or was answered 429, 502, 504 or "conflict", at most Retries
// times, waiting 1, 2 and 4 seconds at most between them. So a call to
// an API that hangs fails within CallBound, and the controller that made
// it tries again later; no controller takes a failed call for "gone".
const (
	AttemptTimeout = 30 * time.Second
	Retries        = 3
	CallBound      = (Retries+1)*AttemptTimeout + 7*time.Second

	// RobotTimeout bounds a request to the Robot webservice, which is
	// not repeated: the cache answers from what it has, or the error.
	RobotTimeout = 15 * time.Second
	// MetadataTimeout bounds the metadata service's answer at start.
	MetadataTimeout = 10 * time.Second
)
