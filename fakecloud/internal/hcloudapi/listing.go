package hcloudapi

import (
	"cmp"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
)

const (
	defaultPerPage = 25
	maxPerPage     = 50
)

// listQuery holds the query parameters every list endpoint shares.
type listQuery struct {
	page, perPage int
	sort          []string // field:dir, validated against the endpoint's keys
	selector      labelselector.Selector
	hasSelector   bool
	name          string
	hasName       bool
}

// parseList reads page, per_page, sort, label_selector and name.
func parseList(r *http.Request) (listQuery, *apiError) {
	q := r.URL.Query()
	lq := listQuery{page: 1, perPage: defaultPerPage}
	var f fieldErrors
	if v := q.Get("page"); q.Has("page") {
		n, ok := parseDecimal(v, math.MaxInt)
		if !ok || n < 1 {
			f.add("page", "must be an integer of at least 1")
		}
		lq.page = int(n)
	}
	if v := q.Get("per_page"); q.Has("per_page") {
		n, ok := parseDecimal(v, maxPerPage)
		if !ok || n < 1 {
			f.add("per_page", "must be an integer from 1 to %d", maxPerPage)
		}
		lq.perPage = int(n)
	}
	if q.Has("label_selector") {
		sel, err := labelselector.Parse(q.Get("label_selector"))
		if err != nil {
			f.add("label_selector", "%v", err)
		}
		lq.selector, lq.hasSelector = sel, true
	}
	if q.Has("name") {
		lq.name, lq.hasName = q.Get("name"), true
	}
	lq.sort = q["sort"]
	return lq, f.err()
}

// sorter orders items by the sort parameter, given comparison functions per
// sortable field. Items not otherwise ordered keep ascending ID order.
type sortKeys[T any] map[string]func(a, b T) int

func applySort[T any](items []T, spec []string, keys sortKeys[T]) *apiError {
	type cmpFn = func(a, b T) int
	var fns []cmpFn
	var f fieldErrors
	for _, s := range spec {
		field, dir, _ := strings.Cut(s, ":")
		fn, ok := keys[field]
		if !ok || (dir != "" && dir != "asc" && dir != "desc") {
			f.add("sort", "%q is not a valid sort; use one of %s with an optional :asc or :desc", s, strings.Join(sortedKeys(keys), ", "))
			continue
		}
		if dir == "desc" {
			fns = append(fns, func(a, b T) int { return fn(b, a) })
		} else {
			fns = append(fns, fn)
		}
	}
	if err := f.err(); err != nil {
		return err
	}
	if len(fns) == 0 {
		return nil
	}
	slices.SortStableFunc(items, func(a, b T) int {
		for _, fn := range fns {
			if c := fn(a, b); c != 0 {
				return c
			}
		}
		return 0
	})
	return nil
}

func sortedKeys[T any](m sortKeys[T]) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// byIDNameCreated are the sort keys shared by most resources.
func byIDNameCreated[T any](id func(T) int64, name func(T) string, created func(T) int64) sortKeys[T] {
	return sortKeys[T]{
		"id":      func(a, b T) int { return cmp.Compare(id(a), id(b)) },
		"name":    func(a, b T) int { return cmp.Compare(name(a), name(b)) },
		"created": func(a, b T) int { return cmp.Compare(created(a), created(b)) },
	}
}

// pagination is the API's meta.pagination; absent neighbours are null.
type pagination struct {
	Page         int  `json:"page"`
	PerPage      int  `json:"per_page"`
	PreviousPage *int `json:"previous_page"`
	NextPage     *int `json:"next_page"`
	LastPage     *int `json:"last_page"`
	TotalEntries *int `json:"total_entries"`
}

type listMeta struct {
	Pagination pagination `json:"pagination"`
}

// paginate cuts one page out of items, sets the Link header and returns the
// page (never nil, so it encodes as []) with its meta.
func paginate[T any](h http.Header, r *http.Request, items []T, q listQuery) ([]T, listMeta) {
	total := len(items)
	last := max(1, (total+q.perPage-1)/q.perPage)
	start := total // a page past the end, however far, is empty
	if q.page-1 <= total/q.perPage {
		start = min((q.page-1)*q.perPage, total)
	}
	end := min(start+q.perPage, total)
	page := make([]T, 0, end-start)
	page = append(page, items[start:end]...)

	p := pagination{Page: q.page, PerPage: q.perPage, LastPage: &last, TotalEntries: &total}
	if q.page > 1 {
		prev := min(q.page-1, last)
		p.PreviousPage = &prev
	}
	if q.page < last {
		next := q.page + 1
		p.NextPage = &next
	}
	setLinkHeader(h, r, p, last)
	return page, listMeta{Pagination: p}
}

func setLinkHeader(h http.Header, r *http.Request, p pagination, last int) {
	var links []string
	add := func(page int, rel string) {
		u := url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path}
		if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
			u.Scheme = "https"
		}
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(page))
		q.Set("per_page", strconv.Itoa(p.PerPage))
		u.RawQuery = q.Encode()
		links = append(links, fmt.Sprintf("<%s>; rel=%q", u.String(), rel))
	}
	if p.PreviousPage != nil {
		add(*p.PreviousPage, "prev")
	}
	if p.NextPage != nil {
		add(*p.NextPage, "next")
	}
	if p.Page != last {
		add(last, "last")
	}
	if len(links) > 0 {
		h.Set("Link", strings.Join(links, ", "))
	}
}
