package fakecloud

import "testing"

func TestLabelSelector(t *testing.T) {
	labels := map[string]string{"env": "prod", "tier": "web", "example.com/team": "a", "empty": ""}
	tests := []struct {
		sel  string
		want bool
	}{
		{"", true},
		{"env=prod", true},
		{"env==prod", true},
		{"env=dev", false},
		{"env!=dev", true},
		{"env!=prod", false},
		{"missing!=x", true},
		{"env", true},
		{"missing", false},
		{"!missing", true},
		{"!env", false},
		{"env in (dev,prod)", true},
		{"env in (dev, staging)", false},
		{"env notin (dev,staging)", true},
		{"env notin (prod)", false},
		{"missing notin (prod)", true},
		{"env=prod,tier=web", true},
		{"env=prod,tier=db", false},
		{"env in (prod,dev),!missing,tier", true},
		{"example.com/team=a", true},
		{"empty=", true},
	}
	for _, tt := range tests {
		sel, err := parseSelector(tt.sel)
		if err != nil {
			t.Errorf("%q: %v", tt.sel, err)
			continue
		}
		if got := sel.matches(labels); got != tt.want {
			t.Errorf("%q matches = %v, want %v", tt.sel, got, tt.want)
		}
	}
}

func TestLabelSelectorErrors(t *testing.T) {
	for _, sel := range []string{"env in (a", "env in a)", "a,", ",a", "bad key=1", "-x=1", "k=v v", "k in (a b)", "a=b,,c"} {
		if _, err := parseSelector(sel); err == nil {
			t.Errorf("%q parsed, want an error", sel)
		}
	}
}
