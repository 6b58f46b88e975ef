package parity

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/hetznercloud/hcloud-go/v2/hcloud"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

func TestOrderVerdict(t *testing.T) {
	at := func(seconds ...int) []*hcloud.Action {
		var out []*hcloud.Action
		for i, s := range seconds {
			out = append(out, &hcloud.Action{ID: int64(i + 1), Started: FakecloudEpoch.Add(time.Duration(s) * time.Second)})
		}
		return out
	}
	tests := []struct {
		name         string
		actions      []*hcloud.Action
		want         string
		wantEvidence string
	}{
		{"nothing to compare", at(5), Unknown, "1 actions listed"},
		{"in time order, equal times allowed", at(1, 1, 2, 5), Holds, "4 actions in ID order"},
		{"a later ID started earlier", at(1, 40, 10, 50, 45), DoesNotHold, "2 started earlier than the one before, by up to 30s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, evidence := orderVerdict(tt.actions)
			if got != tt.want || !strings.Contains(evidence, tt.wantEvidence) {
				t.Errorf("orderVerdict = %q, %q; want %q, with %q", got, evidence, tt.want, tt.wantEvidence)
			}
		})
	}
}

// TestPessimisticFakecloudDiffers runs server-life against fakecloud
// with pessimistic realism, which reads what the API leaves open the
// unhelpful way (IDs only roughly in time order, a primary IP's move
// naming the primary IP alone, finished actions listed for 30 min): the
// kit tells it from the snapshot recorded from the default fakecloud,
// and its feed checks say which beliefs fail there.
func TestPessimisticFakecloudDiffers(t *testing.T) {
	tests := []struct {
		name     string
		feedWait time.Duration
		want     map[string]string // check -> verdict
	}{{
		name: "no feed wait",
		want: map[string]string{
			"4/unassign_primary_ip": DoesNotHold, // listed under /primary_ips/actions
			"2/assign_primary_ip":   DoesNotHold,
			"1/own":                 DoesNotHold, // IDs moved up to 30 s either way
			"3/after-wait":          Holds,
			"2/poweroff":            Holds,
			"2/rename":              DoesNotHold,
		},
	}, {
		name:     "a feed wait past the retention",
		feedWait: 31 * time.Minute,
		want: map[string]string{
			"3/at-once":    Holds,
			"3/after-wait": DoesNotHold, // gone from the listing 30 min after it finished
			"1/own":        Unknown,     // the kit's actions are gone too: nothing to compare
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results := Run(t.Context(), Config{
				Open: func() (*Target, error) {
					target, _ := fakecloudTarget(fakecloud.Options{Realism: fakecloud.Realism{Mode: fakecloud.RealismPessimistic}})
					target.Timing.FeedWait = tt.feedWait
					return target, nil
				},
				Location: "fsn1", Match: regexp.MustCompile("^server-life$"), Dir: snapshotDir, RunID: "rpess",
			})
			if len(results) != 1 || results[0].Err != nil {
				t.Fatalf("the run failed: %+v", results)
			}
			if results[0].Diff == "" {
				t.Error("pessimistic fakecloud reproduces the snapshot recorded from the default fakecloud")
			}
			got := map[string]string{}
			for _, v := range results[0].Snapshot.Verdicts {
				got[v.Check] = v.Verdict
			}
			for check, verdict := range tt.want {
				if got[check] != verdict {
					t.Errorf("check %s: %q, want %q", check, got[check], verdict)
				}
			}
		})
	}
}

// TestRefusedListingIsUnknown: a check whose listing the API refuses
// gives an unknown verdict, with the answer as evidence, and the scenario
// goes on.
func TestRefusedListingIsUnknown(t *testing.T) {
	results := Run(t.Context(), Config{
		Open: func() (*Target, error) {
			target, fc := Fakecloud()
			if _, err := fc.AddFault(fakecloud.Rule{Method: "GET", Path: "/servers/actions", Status: 503}); err != nil {
				return nil, err
			}
			return target, nil
		},
		Location: "fsn1", Match: regexp.MustCompile("^server-life$"), Dir: snapshotDir, RunID: "rrefused",
	})
	if len(results) != 1 || results[0].Err != nil {
		t.Fatalf("the run failed: %+v", results)
	}
	for _, v := range results[0].Snapshot.Verdicts {
		onServers := !strings.HasPrefix(v.Check, "4/attach")
		if onServers && (v.Verdict != Unknown || !strings.Contains(v.Evidence, "answered unavailable")) {
			t.Errorf("check %s: %q (%s), want unknown: the listing answered 503", v.Check, v.Verdict, v.Evidence)
		}
	}
}
