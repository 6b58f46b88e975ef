package providerid

import (
	"errors"
	"testing"
)

func TestProviderID(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
		robot   bool
	}{
		{"hcloud://42", 42, false, false},
		{"hcloud://9007199254740991", 9007199254740991, false, false},
		{"hcloud://", 0, true, false},
		{"hcloud://0", 0, true, false},
		{"hcloud://-1", 0, true, false},
		{"hcloud://042", 0, true, false},
		{"hcloud://12a", 0, true, false},
		{"aws:///eu-west-1a/i-123", 0, true, false},
		{"", 0, true, false},
		{"hrobot://321", 0, true, true},
		{"hcloud://bm-321", 0, true, true},
	}
	for _, tt := range tests {
		got, err := ToServerID(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want || errors.Is(err, ErrRobotServer) != tt.robot {
			t.Errorf("%q: got %d, %v; want %d, error %v (robot %v)", tt.in, got, err, tt.want, tt.wantErr, tt.robot)
		}
	}
}

func FuzzProviderIDRoundTrip(f *testing.F) {
	f.Add(int64(1))
	f.Add(int64(123456789))
	f.Fuzz(func(t *testing.T, id int64) {
		if id < 1 {
			return
		}
		got, err := ToServerID(FromServerID(id))
		if err != nil || got != id {
			t.Fatalf("round trip of %d: %d, %v", id, got, err)
		}
	})
}

func TestRobotProviderID(t *testing.T) {
	for in, want := range map[string]int64{"hrobot://321": 321, "hcloud://bm-321": 321, "hrobot://": 0, "hrobot://0": 0,
		"hrobot://x1": 0, "hcloud://321": 0, "hrobot://0321": 0} {
		got, err := ToRobotNumber(in)
		if got != want || (err != nil) != (want == 0) {
			t.Errorf("ToRobotNumber(%q) = %d, %v; want %d", in, got, err, want)
		}
		if IsRobot(in) != (in != "hcloud://321") {
			t.Errorf("IsRobot(%q) = %v", in, IsRobot(in))
		}
	}
	if n, err := ToRobotNumber(FromRobotNumber(2000001)); n != 2000001 || err != nil {
		t.Errorf("round trip: %d, %v", n, err)
	}
}
