package ccm

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// How server labels become Node labels and taints (opt-in: ServerLabelsConfig).
const (
	// ServerLabelPrefix is put before a server label's key, when it has no
	// prefix of its own, to name its Node label: env=prod on the server is
	// label.hcloud.hetzner.cloud/env=prod on the Node. The prefix is the
	// namespace, so the name keeps the 63 characters a server label key
	// may have: every such server label has a Node label.
	ServerLabelPrefix = "label.hcloud.hetzner.cloud/"
	// ServerTaintPrefix names the taint of a server label
	// taint.<effect>/<name>=<value>: taint.hcloud.hetzner.cloud/<name>.
	ServerTaintPrefix = "taint.hcloud.hetzner.cloud/"
	// AnnotationManagedLabels lists, comma-separated, the Node labels the
	// CCM wrote from server labels: the only ones it changes or removes.
	AnnotationManagedLabels = "hcloud.hetzner.cloud/managed-labels"
	// AnnotationManagedTaints lists the taints it wrote, as key:Effect.
	AnnotationManagedTaints = "hcloud.hetzner.cloud/managed-taints"
)

// Event reasons of the server label sync.
const (
	eventInvalidServerLabel  = "InvalidServerLabel"
	eventServerLabelConflict = "ServerLabelConflict"
)

// taintEffects are the effects a taint's server label names, by the
// lower-case word its key's prefix carries (taint.noschedule/gpu).
var taintEffects = map[string]corev1.TaintEffect{
	"noschedule":       corev1.TaintEffectNoSchedule,
	"prefernoschedule": corev1.TaintEffectPreferNoSchedule,
	"noexecute":        corev1.TaintEffectNoExecute,
}

// serverTaint is what a server label of the form taint.<word>/<name>
// asks for: the effect of word, or an error naming the words there are.
type serverTaint struct {
	name   string
	effect corev1.TaintEffect
	err    error
}

// taintRule reads a server label key of the form taint.<word>/<name>; nil
// for any other key (taint.example.com/x has a domain, not a word).
func taintRule(key string) *serverTaint {
	prefix, name, ok := strings.Cut(key, "/")
	word, isTaint := strings.CutPrefix(prefix, "taint.")
	if !ok || !isTaint || word == "" || strings.Contains(word, ".") {
		return nil
	}
	if e, ok := taintEffects[word]; ok {
		return &serverTaint{name: name, effect: e}
	}
	return &serverTaint{name: name, err: fmt.Errorf("server label %s names no taint effect: want taint.noschedule/, taint.prefernoschedule/ or taint.noexecute/ before the name", key)}
}

// wanted are the Node labels and taints a server's labels ask for, and
// the problems that keep them off the Node.
type wanted struct {
	labels   map[string]string
	taints   []corev1.Taint // sorted by key, then effect
	problems []string
}

// wantedOf maps a server's labels by cfg: a key without a prefix to
// ServerLabelPrefix+key (with Labels), a Verbatim key to itself, a
// taint.<effect>/<name> key to a taint (with Taints). Every result is
// checked as Kubernetes checks it: the API's label rules are documented,
// not promised to be Kubernetes'.
func wantedOf(serverLabels map[string]string, cfg ServerLabelsConfig) wanted {
	w := wanted{labels: map[string]string{}}
	for _, k := range slices.Sorted(maps.Keys(serverLabels)) {
		v := serverLabels[k]
		if t := taintRule(k); t != nil {
			if !cfg.Taints {
				continue
			}
			if t.err != nil {
				w.problems = append(w.problems, t.err.Error())
				continue
			}
			taint := corev1.Taint{Key: ServerTaintPrefix + t.name, Value: v, Effect: t.effect}
			if msg := invalidLabel(taint.Key, v); msg != "" {
				w.problems = append(w.problems, fmt.Sprintf("server label %s=%s makes no taint: %s", k, v, msg))
				continue
			}
			w.taints = append(w.taints, taint)
			continue
		}
		var keys []string
		if cfg.Labels && !strings.Contains(k, "/") {
			keys = append(keys, ServerLabelPrefix+k)
		}
		if slices.Contains(cfg.Verbatim, k) {
			keys = append(keys, k)
		}
		for _, nk := range keys {
			if msg := invalidLabel(nk, v); msg != "" {
				w.problems = append(w.problems, fmt.Sprintf("server label %s=%s makes no Node label %s: %s", k, v, nk, msg))
				continue
			}
			w.labels[nk] = v
		}
	}
	slices.SortFunc(w.taints, func(a, b corev1.Taint) int { return strings.Compare(taintID(a), taintID(b)) })
	return w
}

// invalidLabel says why key=value is no Kubernetes label, or "".
func invalidLabel(key, value string) string {
	msgs := append(validation.IsQualifiedName(key), validation.IsValidLabelValue(value)...)
	return strings.Join(msgs, "; ")
}

// taintID names a taint as the Node holds it: one per key and effect.
func taintID(t corev1.Taint) string { return t.Key + ":" + string(t.Effect) }

// managed reads a record annotation's comma-separated entries.
func managed(node *corev1.Node, annotation string) []string {
	var out []string
	for s := range strings.SplitSeq(node.Annotations[annotation], ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// labelPlan is how a Node changes: labels to set or (nil) remove, the
// whole new taint list when it changes, the new records, and the keys
// left alone because the CCM did not write them.
type labelPlan struct {
	labels         map[string]*string
	taints         []corev1.Taint // nil: unchanged
	taintsChanged  bool
	recordLabels   string
	recordTaints   string
	recordsChanged bool
	conflicts      []string
}

func (p labelPlan) changes() bool { return len(p.labels) > 0 || p.taintsChanged || p.recordsChanged }

// plan compares a Node with what its server asks for. Only what the
// records name is changed or removed; a key the Node has that the CCM did
// not write is left as it is, and named in conflicts when its value
// differs.
func plan(node *corev1.Node, w wanted) labelPlan {
	p := labelPlan{labels: map[string]*string{}}
	owned := managed(node, AnnotationManagedLabels)
	var wrote []string
	for _, k := range owned {
		if _, still := w.labels[k]; !still {
			if _, has := node.Labels[k]; has {
				p.labels[k] = nil
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(w.labels)) {
		v := w.labels[k]
		cur, has := node.Labels[k]
		switch {
		case has && !slices.Contains(owned, k):
			if cur != v {
				p.conflicts = append(p.conflicts, fmt.Sprintf("label %s=%s (the server's %s)", k, cur, v))
			}
			continue
		case !has || cur != v:
			p.labels[k] = &v
		}
		wrote = append(wrote, k)
	}
	p.recordLabels = strings.Join(wrote, ",")

	ownedTaints := managed(node, AnnotationManagedTaints)
	var taints []corev1.Taint
	var wroteTaints []string
	byID := map[string]corev1.Taint{}
	for _, t := range w.taints {
		byID[taintID(t)] = t
	}
	for _, t := range node.Spec.Taints {
		id := taintID(t)
		want, ok := byID[id]
		switch {
		case slices.Contains(ownedTaints, id) && !ok:
			p.taintsChanged = true // gone from the server: removed
		case slices.Contains(ownedTaints, id):
			if t.Value != want.Value {
				p.taintsChanged = true
			}
			taints = append(taints, want)
			wroteTaints = append(wroteTaints, id)
			delete(byID, id)
		case ok:
			if t.Value != want.Value {
				p.conflicts = append(p.conflicts, fmt.Sprintf("taint %s=%s:%s (the server's %s)", t.Key, t.Value, t.Effect, want.Value))
			}
			taints = append(taints, t)
			delete(byID, id)
		default:
			taints = append(taints, t)
		}
	}
	for _, t := range w.taints {
		if _, new := byID[taintID(t)]; new {
			taints = append(taints, t)
			wroteTaints = append(wroteTaints, taintID(t))
			p.taintsChanged = true
		}
	}
	slices.Sort(wroteTaints)
	p.recordTaints = strings.Join(wroteTaints, ",")
	if p.taintsChanged {
		p.taints = taints
	}
	p.recordsChanged = p.recordLabels != node.Annotations[AnnotationManagedLabels] || p.recordTaints != node.Annotations[AnnotationManagedTaints]
	return p
}

// ServerLabelState is what the server label sync makes of a Node, for
// ccm doctor: the problems that leave the Node as it is, what the Node
// has that the CCM did not write and the server asks otherwise, and
// whether a sync would change the Node.
type ServerLabelState struct {
	Problems, Conflicts []string
	Pending             bool
}

// ServerLabelsOf compares a Node with its server's labels as the sync does.
func ServerLabelsOf(node *corev1.Node, serverLabels map[string]string, cfg ServerLabelsConfig) ServerLabelState {
	w := wantedOf(serverLabels, cfg)
	if len(w.problems) > 0 {
		return ServerLabelState{Problems: w.problems}
	}
	p := plan(node, w)
	return ServerLabelState{Conflicts: p.conflicts, Pending: p.changes()}
}
