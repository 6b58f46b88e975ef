package fakecloud

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/apierr"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/labelselector"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/listing"
	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/strict"
)

const (
	defaultPerPage = 25
	maxPerPage     = 50
)

// parseList reads page, per_page, sort, label_selector and name.
func parseList(r *http.Request) (listing.Query, *apierr.Error) {
	return parseListUpTo(r, maxPerPage)
}

// parseListUpTo is parseList for an endpoint whose per_page goes up to
// most (an RRSet listing's 100).
func parseListUpTo(r *http.Request, most uint64) (listing.Query, *apierr.Error) {
	q := r.URL.Query()
	lq := listing.Query{Page: 1, PerPage: defaultPerPage}
	var f apierr.Fields
	if v := q.Get("page"); q.Has("page") {
		n, ok := strict.ParseDecimal(v, math.MaxInt)
		if !ok || n < 1 {
			f.Add("page", "must be an integer of at least 1")
		}
		lq.Page = int(n)
	}
	if v := q.Get("per_page"); q.Has("per_page") {
		n, ok := strict.ParseDecimal(v, most)
		if !ok || n < 1 {
			f.Add("per_page", "must be an integer from 1 to %d", most)
		}
		lq.PerPage = int(n)
	}
	if q.Has("label_selector") {
		sel, err := labelselector.Parse(q.Get("label_selector"))
		if err != nil {
			f.Add("label_selector", "%v", err)
		}
		lq.Selector, lq.HasSelector = sel, true
	}
	if q.Has("name") {
		lq.Name, lq.HasName = q.Get("name"), true
	}
	lq.Sort = q["sort"]
	return lq, f.Err()
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
func paginate[T any](h http.Header, r *http.Request, items []T, q listing.Query) ([]T, listMeta) {
	return listing.Cut(items, q), metaOf(h, r, len(items), q)
}

// metaOf is the meta of a page of a list of total items; it sets the
// Link header.
func metaOf(h http.Header, r *http.Request, total int, q listing.Query) listMeta {
	last := max(1, (total+q.PerPage-1)/q.PerPage)
	p := pagination{Page: q.Page, PerPage: q.PerPage, LastPage: &last, TotalEntries: &total}
	if q.Page > 1 {
		prev := min(q.Page-1, last)
		p.PreviousPage = &prev
	}
	if q.Page < last {
		next := q.Page + 1
		p.NextPage = &next
	}
	setLinkHeader(h, r, p, last)
	return listMeta{Pagination: p}
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
