// Package timeseries is the shape of the API's metrics endpoints
// (GET /servers/{id}/metrics, GET /load_balancers/{id}/metrics): the
// query (types, start, end, step), the times a series is sampled at, and
// the answer. What the values are, the world decides.
package timeseries

import (
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
)

const (
	// defaultSamples is how many samples a query without step gets, and
	// maxSamples the most any gets: the description's "a maximum of 200
	// samples" and "a maximum of 500".
	defaultSamples = 200
	maxSamples     = 500
	// Retention is how far back metrics go: "the last 30 days only".
	Retention = 30 * 24 * time.Hour
)

// Query is a metrics request: the types asked for, the period and the
// step between samples, in seconds.
type Query struct {
	Types      []string
	Start, End time.Time
	Step       int64
}

// Parse reads a metrics query: type (repeated or comma separated, each
// one of allowed), start and end (RFC 3339, end after start) and step
// (whole seconds; by default the period in 200 samples, and never more
// than 500).
func Parse(v url.Values, allowed []string) (Query, *apierr.Error) {
	var f apierr.Fields
	var q Query
	for _, t := range v["type"] {
		for part := range strings.SplitSeq(t, ",") {
			switch {
			case !slices.Contains(allowed, part):
				f.Add("type", "%q is not one of %s", part, strings.Join(allowed, ", "))
			case !slices.Contains(q.Types, part):
				q.Types = append(q.Types, part)
			}
		}
	}
	if len(v["type"]) == 0 {
		f.Add("type", "is required: one or more of %s", strings.Join(allowed, ", "))
	}
	var errStart, errEnd error
	if q.Start, errStart = time.Parse(time.RFC3339, v.Get("start")); errStart != nil {
		f.Add("start", "%q is not a time in RFC 3339 format", v.Get("start"))
	}
	if q.End, errEnd = time.Parse(time.RFC3339, v.Get("end")); errEnd != nil {
		f.Add("end", "%q is not a time in RFC 3339 format", v.Get("end"))
	}
	if errStart == nil && errEnd == nil && !q.End.After(q.Start) {
		f.Add("end", "must be after start")
	}
	if s := v.Get("step"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 1 {
			f.Add("step", "%q is not a whole number of seconds of at least 1", s)
		}
		q.Step = n
	}
	if err := f.Err(); err != nil {
		return Query{}, err
	}
	span := int64(math.Ceil(q.End.Sub(q.Start).Seconds()))
	if q.Step == 0 {
		q.Step = max(1, ceilDiv(span, defaultSamples))
	}
	if span/q.Step+1 > maxSamples {
		q.Step = ceilDiv(span, maxSamples-1)
	}
	// A step longer than the period gives its one sample, at start; it
	// also keeps the step's duration from overflowing.
	q.Step = min(q.Step, max(span, 1))
	return q, nil
}

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Times are the query's sample times, start then every step up to end,
// that lie within [from, until]: none before a resource existed, after
// now or older than the retention.
func (q Query) Times(from, until time.Time) []time.Time {
	var out []time.Time
	step := time.Duration(max(q.Step, 1)) * time.Second
	for i := range maxSamples { // bounded whatever the step
		t := q.Start.Add(time.Duration(i) * step)
		if t.After(q.End) {
			break
		}
		if !t.Before(from) && !t.After(until) {
			out = append(out, t)
		}
	}
	return out
}

// Point is one sample of a series.
type Point struct {
	At    time.Time
	Value float64
}

// Answer is the metrics endpoints' body.
type Answer struct {
	Metrics Metrics `json:"metrics"`
}

// Metrics is the period, the step and each series by name.
type Metrics struct {
	Start      time.Time         `json:"start"`
	End        time.Time         `json:"end"`
	Step       float64           `json:"step"`
	TimeSeries map[string]Series `json:"time_series"`
}

// Series is one time series: [timestamp, "value"] pairs, as the API
// writes them.
type Series struct {
	Values [][2]any `json:"values"`
}

// Build is the answer for a query and its series.
func (q Query) Build(series map[string][]Point) Answer {
	m := Metrics{Start: q.Start.UTC(), End: q.End.UTC(), Step: float64(q.Step), TimeSeries: map[string]Series{}}
	for name, points := range series {
		s := Series{Values: make([][2]any, 0, len(points))}
		for _, p := range points {
			s.Values = append(s.Values, [2]any{float64(p.At.Unix()), strconv.FormatFloat(p.Value, 'f', -1, 64)})
		}
		m.TimeSeries[name] = s
	}
	return Answer{Metrics: m}
}
