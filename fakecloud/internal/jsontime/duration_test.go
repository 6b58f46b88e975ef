package jsontime

import (
	"encoding/json"
	"testing"
	"time"
)

func TestDuration(t *testing.T) {
	out, err := json.Marshal(Duration(90 * time.Second))
	if err != nil || string(out) != `"1m30s"` {
		t.Errorf("marshal 90 s: %s %v, want \"1m30s\"", out, err)
	}
	tests := []struct {
		name, in string
		want     Duration
		wantErr  bool
	}{
		{name: "text", in: `"15s"`, want: Duration(15 * time.Second)},
		{name: "bare number", in: `15`, wantErr: true},
		{name: "no unit", in: `"15"`, wantErr: true},
		{name: "negative", in: `"-1s"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Duration
			err := json.Unmarshal([]byte(tt.in), &d)
			if (err != nil) != tt.wantErr || d != tt.want {
				t.Errorf("unmarshal %s: %v %v, want %v (error %v)", tt.in, time.Duration(d), err, time.Duration(tt.want), tt.wantErr)
			}
		})
	}
}
