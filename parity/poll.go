package parity

import (
	"context"
	"errors"
	"time"
)

// errNotWithin is poll's answer when its bound passed first.
var errNotWithin = errors.New("not within the bound")

// poll calls try until it says done, sleeping every on the clock between
// two calls: at most limit/every+1 calls, and none after limit has passed
// on the clock (a slow answer counts too).
func poll(ctx context.Context, clock Clock, every, limit time.Duration, try func() (bool, error)) error {
	deadline := clock.Now().Add(limit)
	for calls := 1; ; calls++ {
		done, err := try()
		if err != nil || done {
			return err
		}
		if calls > int(limit/every) || !clock.Now().Before(deadline) {
			return errNotWithin
		}
		if err := clock.Sleep(ctx, every); err != nil {
			return err
		}
	}
}
