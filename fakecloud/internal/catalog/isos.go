package catalog

import (
	"strconv"

	"github.com/hetznercloud/hcloud-go/v2/hcloud/schema"
)

// isoData are the public ISOs. The two Windows Server 2022 IDs are the
// live ones (the Terraform provider's acceptance tests attach 8637 and
// 8638); their names, and the other ISOs, are fakecloud's own. None is a
// wildcard (architecture null): the description allows null but leaves it
// out of the enum its answers are judged by.
var isoData = []struct {
	id         int64
	name, desc string
	arch       string
}{
	{8637, "windows-server-2022-english.iso", "Windows Server 2022 English", "x86"},
	{8638, "windows-server-2022-german.iso", "Windows Server 2022 German", "x86"},
	{120512, "virtio-win-0.1.271.iso", "virtio-win 0.1.271", "x86"},
	{120514, "debian-13.1.0-arm64-netinst.iso", "Debian 13.1 (arm64, netinstall)", "arm"},
}

// ISOs lists the ISOs, as GET /isos and a server's iso show them.
func (c *Catalog) ISOs() []schema.ISO { return c.isos }

// ISO finds an ISO by ID or name.
func (c *Catalog) ISO(ref string) (schema.ISO, bool) {
	for _, iso := range c.isos {
		if strconv.FormatInt(iso.ID, 10) == ref || iso.Name == ref {
			return iso, true
		}
	}
	return schema.ISO{}, false
}

func newISOs() []schema.ISO {
	out := make([]schema.ISO, 0, len(isoData))
	for _, d := range isoData {
		iso := schema.ISO{ID: d.id, Name: d.name, Description: d.desc, Type: "public"}
		if d.arch != "" {
			iso.Architecture = &d.arch
		}
		out = append(out, iso)
	}
	return out
}
