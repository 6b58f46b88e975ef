package fakecloud

import (
	"fmt"
	"runtime"
	"testing"
)

// BenchmarkProjectMemory is what a project costs in memory: the heap of a
// fakecloud with 20 further projects, empty and then each seeded with the
// small world (3 servers, a network, a load balancer), less one without,
// per project.
func BenchmarkProjectMemory(b *testing.B) {
	const n = 20
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	w, err := LoadWorld("../testdata/worlds/small.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var empty, seeded float64
	for b.Loop() {
		base := heap()
		one := New(Options{})
		alone := heap()
		projects := map[string][]string{}
		for i := range n {
			projects[fmt.Sprintf("p%d", i)] = []string{fmt.Sprintf("token-%d", i)}
		}
		fc := New(Options{Projects: projects})
		withEmpty := heap()
		for _, name := range fc.Projects()[1:] {
			p, _ := fc.Project(name)
			if err := p.Seed(w); err != nil {
				b.Fatal(err)
			}
		}
		withSeeded := heap()
		empty = float64(withEmpty-alone-(alone-base)) / n
		seeded = float64(withSeeded-alone-(alone-base)) / n
		runtime.KeepAlive(one)
		runtime.KeepAlive(fc)
	}
	b.ReportMetric(empty, "B/empty-project")
	b.ReportMetric(seeded, "B/seeded-project")
}
