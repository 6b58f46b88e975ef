package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRateLimitPrintsTheAnswer(t *testing.T) {
	_, url := serveFake(t)
	out, err := cli(t, url, "rate-limit", "--refill", "0.25")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(indented(t, adminAnswer(t, url, "/rate-limit")), out); diff != "" {
		t.Errorf("rate-limit (-answer +printed):\n%s", diff)
	}
}
