package nearname

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestClosest(t *testing.T) {
	servers := []string{"worker-1", "worker-2", "Worker-3.example.com", "control-plane", "db", "worker-12"}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"worker-3", []string{"Worker-3.example.com", "worker-1", "worker-2"}}, // suffix and case first
		{"worker-1.cluster.local", []string{"worker-1"}},
		{"worker-1", []string{"worker-12", "worker-2"}}, // itself is no near miss
		{"contrl-plane", []string{"control-plane"}},
		{"api", nil},
		{"dc", []string{"db"}}, // short names: one edit still counts
	} {
		if got := Closest(tc.name, servers, 3); !cmp.Equal(got, tc.want, cmpopts.EquateEmpty()) {
			t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestNearMiss(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"node1", "Node1", true},
		{"node1", "node1.example.com", true},
		{"node1", "node1", false},
		{"node1", "node2", false},
	} {
		if got := NearMiss(tc.a, tc.b); got != tc.want {
			t.Errorf("NearMiss(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
