package annotation

import (
	"strings"
	"testing"
)

func TestTargetAddressFamily(t *testing.T) {
	for _, c := range []struct {
		name     string
		ann      map[string]string
		def      string
		want     string
		accepted string // of the error; "" for none
	}{
		{"unset: ipv4", nil, "", FamilyIPv4, ""},
		{"the cluster default", nil, FamilyDualStack, FamilyDualStack, ""},
		{"the annotation over the default", map[string]string{"target-address-family": "IPv6"}, FamilyDualStack, FamilyIPv6, ""},
		{"a value it does not take", map[string]string{"target-address-family": "v6"}, "", FamilyIPv4, "one of ipv4, ipv6, dualstack"},
		{"ipv6 on private targets", map[string]string{"target-address-family": "ipv6", "use-private-ip": "true"}, "", FamilyIPv6, "private networks are IPv4-only"},
		{"ipv4 on private targets", map[string]string{"target-address-family": "ipv4", "use-private-ip": "true"}, "", FamilyIPv4, ""},
		{"a default with private targets: not the Service's fault", map[string]string{"use-private-ip": "true"}, FamilyDualStack, FamilyDualStack, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			o, err := Parse(service(c.ann), Defaults{Type: "lb11", TargetAddressFamily: c.def})
			if c.accepted == "" && err != nil || c.accepted != "" && (err == nil || !strings.Contains(err.Error(), c.accepted)) {
				t.Fatalf("error %v, want one accepting %q", err, c.accepted)
			}
			if err == nil && o.TargetAddressFamily != c.want {
				t.Errorf("family %q, want %q", o.TargetAddressFamily, c.want)
			}
		})
	}
	if err := CheckDefaults(Defaults{TargetAddressFamily: "both"}); err == nil || !strings.Contains(err.Error(), "HCLOUD_LOAD_BALANCERS_TARGET_ADDRESS_FAMILY=both: want one of ipv4, ipv6, dualstack") {
		t.Errorf("CheckDefaults: %v", err)
	}
}
