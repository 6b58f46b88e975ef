package world

import (
	"testing"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// TestFreeName: a made-up name steps past the names taken.
func TestFreeName(t *testing.T) {
	table := NewTable[schema.FloatingIP]()
	name := func(f *schema.FloatingIP) string { return f.Name }
	if got := freeName(&table, name, "floating-ip-5"); got != "floating-ip-5" {
		t.Errorf("in an empty table: %s", got)
	}
	table.Put(1, &schema.FloatingIP{ID: 1, Name: "floating-ip-5"})
	table.Put(2, &schema.FloatingIP{ID: 2, Name: "floating-ip-5-2"})
	if got := freeName(&table, name, "floating-ip-5"); got != "floating-ip-5-3" {
		t.Errorf("with floating-ip-5 and -2 taken: %s, want floating-ip-5-3", got)
	}
}
