// Package listing is what every list endpoint of the API shares: the
// query (page, sort, label selector and name), sorting by the endpoint's
// keys with the API's error for an unknown one, and cutting a page.
package listing
