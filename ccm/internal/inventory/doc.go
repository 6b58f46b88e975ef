// Package inventory is what the CCM knows of the project's servers and
// how it learns it within its share of the API's requests: an inventory
// of servers kept fresh by paged listings and targeted reads, a change
// feed read from the action listings that vouches for entries between
// listings, and the request budget that paces every call by the rate
// limit the API reports.
package inventory
