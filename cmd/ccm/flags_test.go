package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/component-base/logs"

	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// TestReferenceFlags: docs/reference/flags.md lists every flag of the
// command, section by section as --help prints them, with this CCM's
// defaults, and every flag of ccm doctor.
func TestReferenceFlags(t *testing.T) {
	opts, err := newOptions()
	if err != nil {
		t.Fatal(err)
	}
	sections := flagSections(opts, &webhookFlags{}, logs.NewOptions())
	var b strings.Builder
	n := 0
	for _, name := range sections.Order {
		var rows [][]string
		sections.FlagSets[name].VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Deprecated != "" {
				return
			}
			n++
			flagName := "--" + f.Name
			if f.Shorthand != "" {
				flagName = "-" + f.Shorthand + ", " + flagName
			}
			rows = append(rows, []string{refdoc.Code(flagName), refdoc.Code(f.DefValue), html(f.Usage)})
		})
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "### %s\n\n%s\n", name, refdoc.Table([]string{"flag", "default", "meaning"}, rows))
	}
	if n < 80 {
		t.Fatalf("found %d flags, want upstream's and this CCM's", n)
	}
	for _, want := range []string{"`--webhook-cert-secret`", "`--concurrent-node-syncs` | `20`", "`--cloud-provider` | `hcloud`"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the flags lack %s", want)
		}
	}
	refdoc.Check(t, "docs/reference/flags.md", "ccm-flags", b.String())

	fs, _ := newDoctorFlags(io.Discard)
	var rows [][]string
	fs.VisitAll(func(f *flag.Flag) {
		rows = append(rows, []string{refdoc.Code("--" + f.Name), refdoc.Code(f.DefValue), html(f.Usage)})
	})
	refdoc.Check(t, "docs/reference/flags.md", "doctor-flags", refdoc.Table([]string{"flag", "default", "meaning"}, rows))
}

// html escapes what Markdown would read as a tag.
func html(s string) string {
	return strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace(s)
}
