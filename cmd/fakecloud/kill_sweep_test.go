package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// killMoments are when the kill sweep's rounds send SIGKILL, after their
// first create; in the last ones the creates stop quiet before, and in
// the very last the kill waits until the status says the file holds
// every change.
var killMoments = []struct {
	after, quiet time.Duration
	settle       bool
}{
	{1 * time.Millisecond, 0, false}, {4 * time.Millisecond, 0, false}, {9 * time.Millisecond, 0, false},
	{17 * time.Millisecond, 0, false}, {30 * time.Millisecond, 0, false}, {45 * time.Millisecond, 0, false},
	{40 * time.Millisecond, 10 * time.Millisecond, false}, {70 * time.Millisecond, 50 * time.Millisecond, false},
	{150 * time.Millisecond, 120 * time.Millisecond, false}, {30 * time.Millisecond, 0, true},
}

// TestKill9Sweep: fakecloud, with a state file written every 5 ms and
// busy exporting its world for two other clients, is killed with SIGKILL
// at a different moment in each round while a client creates networks,
// reading GET /_fakecloud/state-file after each create. After each kill
// it starts again, and every create that a status read before the kill
// said was in the file is there: its change counted at most
// saved_changes, or it was acknowledged before saved_as_of. The rounds
// take about a second; the last waits for the file to catch up, so the
// sweep always has creates to check.
func TestKill9Sweep(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "state.json")
	args := []string{"--listen", "127.0.0.1:0", "--state-file", path, "--state-interval", "5ms", "--rate-limit", "0"}
	var durable []string // the names of the creates the file must hold
	acked := 0
	for round := 0; ; round++ {
		cmd, url := startChild(t, args...)
		names := networkNames(t, url)
		var missing []string
		for _, name := range durable {
			if !slices.Contains(names, name) {
				missing = append(missing, name)
			}
		}
		if len(missing) > 0 {
			t.Fatalf("round %d: %d of %d creates the status said were in the file are missing after kill -9: %v", round, len(missing), len(durable), missing)
		}
		if round == len(killMoments) {
			break
		}
		moment := killMoments[round]
		var stop atomic.Bool
		var load sync.WaitGroup
		for range 2 {
			load.Go(func() {
				for !stop.Load() {
					_, _ = adminGet(url, "/state", nil)
				}
			})
		}
		creates := make(chan []sweepAck, 1)
		begun := make(chan struct{})
		go func() { creates <- createUntil(t, url, round, moment.after-moment.quiet, begun) }()
		<-begun
		time.Sleep(moment.after) // the moment of the kill
		for deadline := time.Now().Add(10 * time.Second); moment.settle; time.Sleep(time.Millisecond) {
			var body struct {
				StateFile fakecloud.StateFileStatus `json:"state_file"`
			}
			if _, err := adminGet(url, "/state-file", &body); err == nil && body.StateFile.SavedChanges >= body.StateFile.Changes {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the state file did not catch up with the changes within 10 s", round)
			}
		}
		if err := cmd.Process.Signal(os.Kill); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Wait()
		stop.Store(true)
		load.Wait()
		acks := <-creates
		saved, asOf := sweepMark(acks)
		var longest float64
		for _, a := range acks {
			longest = max(longest, a.status.WriteSeconds)
		}
		for _, a := range acks {
			if (a.change > 0 && a.change <= saved) || a.at.Before(asOf) {
				durable = append(durable, a.name)
			}
		}
		acked += len(acks)
		t.Logf("round %d: killed %v after the first create (the last %v without creates): %d creates acknowledged, the file holds changes up to %d and as of %v (the longest write %.1f ms); %d creates durable so far",
			round, moment.after, moment.quiet, len(acks), saved, asOf.Format(time.StampMicro), longest*1000, len(durable))
	}
	if len(durable) < 20 { // a status that never names a durable change tests nothing
		t.Errorf("the status named %d of %d acknowledged creates durable: too few to check the promise", len(durable), acked)
	}
}

// sweepAck is a create acknowledged, with the change count read after
// it (at least its own) and the status read then.
type sweepAck struct {
	name   string
	at     time.Time // when the create's answer arrived
	change uint64
	status fakecloud.StateFileStatus
}

// createUntil creates networks one after another, each followed by a
// status read, until a request fails (the kill) or, after quiet, stops
// creating and only reads the status. It closes begun at the first create.
func createUntil(t *testing.T, url string, round int, busy time.Duration, begun chan<- struct{}) []sweepAck {
	var acks []sweepAck
	first := time.Now()
	for i := 0; ; i++ {
		if i == 0 {
			close(begun)
		}
		name := fmt.Sprintf("r%d-n%d", round, i)
		if time.Since(first) < busy || i == 0 {
			req, _ := http.NewRequest("POST", url+"/networks", strings.NewReader(fmt.Sprintf(`{"name":%q,"ip_range":"10.0.0.0/16"}`, name)))
			req.Header.Set("Authorization", "Bearer "+fakecloud.DefaultToken)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return acks
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				t.Errorf("create %s: %d", name, resp.StatusCode)
				return acks
			}
			acks = append(acks, sweepAck{name: name, at: time.Now()})
		}
		var body struct {
			StateFile fakecloud.StateFileStatus `json:"state_file"`
		}
		if _, err := adminGet(url, "/state-file", &body); err != nil {
			return acks
		}
		if n := len(acks); n > 0 && acks[n-1].change == 0 {
			acks[n-1].change = body.StateFile.Changes
		}
		if n := len(acks); n > 0 {
			acks[n-1].status = body.StateFile // the latest read
		}
	}
}

// sweepMark is what the latest status read says the file holds: every
// change up to saved, every change acknowledged before asOf.
func sweepMark(acks []sweepAck) (saved uint64, asOf time.Time) {
	for _, a := range acks {
		saved = max(saved, a.status.SavedChanges)
		if a.status.SavedAsOf.After(asOf) {
			asOf = a.status.SavedAsOf
		}
	}
	return saved, asOf
}

// adminGet reads an admin route of the fakecloud serving url, decoding
// its JSON into out when given.
func adminGet(url, route string, out any) (int, error) {
	resp, err := http.Get(strings.TrimSuffix(url, "/v1") + "/_fakecloud" + route)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if out == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, err
	}
	return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
}

// networkNames are the names of the networks a fakecloud holds.
func networkNames(t *testing.T, url string) []string {
	t.Helper()
	var st struct{ Networks []struct{ Name string } }
	if code, err := adminGet(url, "/state", &st); code != http.StatusOK || err != nil {
		t.Fatalf("GET /_fakecloud/state: %d, %v", code, err)
	}
	var names []string
	for _, n := range st.Networks {
		names = append(names, n.Name)
	}
	return names
}
