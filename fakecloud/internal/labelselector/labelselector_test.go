package labelselector

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
		sel, err := Parse(tt.sel)
		if err != nil {
			t.Errorf("%q: %v", tt.sel, err)
			continue
		}
		if got := sel.Matches(labels); got != tt.want {
			t.Errorf("%q matches = %v, want %v", tt.sel, got, tt.want)
		}
	}
}

func TestLabelSelectorErrors(t *testing.T) {
	for _, sel := range []string{"env in (a", "env in a)", "a,", ",a", "bad key=1", "-x=1", "k=v v", "k in (a b)", "a=b,,c"} {
		if _, err := Parse(sel); err == nil {
			t.Errorf("%q parsed, want an error", sel)
		}
	}
}

// FuzzLabelSelector: parsing never panics, and a parsed selector evaluates.
func FuzzLabelSelector(f *testing.F) {
	for _, s := range []string{"a=b", "a in (b,c),!d", "x notin (y)", "k!=v,k2", "a,b,(c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sel, err := Parse(s)
		if err == nil {
			sel.Matches(map[string]string{"a": "b"})
		}
	})
}
