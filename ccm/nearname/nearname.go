// Package nearname finds names close to a given one: the servers named
// like a Node the CCM cannot match, the variable meant by a misspelt one.
package nearname

import (
	"slices"
	"strings"
)

// Closest returns up to n of names that come close to name, closest
// first: those equal but for case or a domain suffix (node1 and
// Node1.example.com), then those within a few edits, at most a third of
// the name's length.
func Closest(name string, names []string, n int) []string {
	type scored struct {
		name string
		dist int
	}
	var found []scored
	for _, c := range names {
		if c == name {
			continue
		}
		switch d := Distance(strings.ToLower(name), strings.ToLower(c)); {
		case host(c) == host(name):
			found = append(found, scored{c, 0})
		case d <= max(1, len(name)/3):
			found = append(found, scored{c, d})
		}
	}
	slices.SortFunc(found, func(a, b scored) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, 0, min(n, len(found)))
	for _, f := range found[:min(n, len(found))] {
		out = append(out, f.name)
	}
	return out
}

// NearMiss reports whether a and b differ only in case or a domain suffix.
func NearMiss(a, b string) bool { return a != b && host(a) == host(b) }

// host is a name's first label, lower case.
func host(name string) string {
	h, _, _ := strings.Cut(strings.ToLower(name), ".")
	return h
}

// Distance is the Levenshtein distance between a and b, in bytes (the
// names it is for are ASCII).
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
