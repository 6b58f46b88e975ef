package ccm

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
	"github.com/hcloudlab/hcloud-ccm/internal/refdoc"
)

// describing registers as its registry does and keeps each collector's
// descriptions.
type describing struct {
	prometheus.Registerer
	descs []string
}

func (d *describing) Register(c prometheus.Collector) error {
	ch := make(chan *prometheus.Desc)
	go func() { c.Describe(ch); close(ch) }()
	var descs []string
	for desc := range ch {
		descs = append(descs, desc.String())
	}
	// A collector registered again (hcloud-go's, by each of the CCM's
	// clients) is reused, not listed twice.
	err := d.Registerer.Register(c)
	if !errors.As(err, new(prometheus.AlreadyRegisteredError)) {
		d.descs = append(d.descs, descs...)
	}
	return err
}

func (d *describing) MustRegister(cs ...prometheus.Collector) {
	for _, c := range cs {
		if err := d.Register(c); err != nil {
			panic(err)
		}
	}
}

// descFields reads prometheus.Desc's String form.
var descFields = regexp.MustCompile(`^Desc\{fqName: "([^"]+)", help: "((?:[^"\\]|\\.)*)",(?: unit: "[^"]*",)? constLabels: \{[^}]*\}, variableLabels: \{([^}]*)\}\}$`)

// TestReferenceMetrics: docs/reference/metrics.md lists every metric the
// provider registers (its own, the official CCM's, hcloud-go's), as the
// provider registers them with metrics and Robot on.
func TestReferenceMetrics(t *testing.T) {
	fx := newCloud(t, 1, fakecloud.Options{})
	cfg := testConfig(fx)
	cfg.MetricsEnabled, cfg.MetricsAddress = true, "127.0.0.1:0"
	cfg.Robot = RobotConfig{Enabled: true, User: "u", Password: "p", Endpoint: fx.URL + "/robot"}
	cfg.LoadBalancers.Enabled = true // the load balancers' health and traffic metrics
	rec := &describing{}
	if _, err := build(t.Context(), cfg, buildOptions{registerer: func(r prometheus.Registerer) prometheus.Registerer {
		rec.Registerer = r
		return rec
	}}); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, d := range rec.descs {
		m := descFields.FindStringSubmatch(d)
		if m == nil {
			t.Fatalf("cannot read the description %s", d)
		}
		var labels []string
		for l := range strings.SplitSeq(m[3], ",") {
			if l = strings.TrimSpace(l); l != "" {
				labels = append(labels, refdoc.Code(l))
			}
		}
		help := strings.ReplaceAll(m[2], `\"`, `"`)
		rows = append(rows, []string{refdoc.Code(m[1]), strings.Join(labels, ", "), help})
	}
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	names := fmt.Sprint(rows)
	for _, want := range []string{"hcloud_ccm_inventory_lookups_total", "cloud_controller_manager_operations_total", "hcloud_api_requests_total", "hcloud_ccm_robot_calls_total"} {
		if !strings.Contains(names, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
	refdoc.Check(t, "docs/reference/metrics.md", "metrics", refdoc.Table([]string{"metric", "labels", "help"}, rows))
}
