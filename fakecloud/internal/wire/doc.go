// Package wire is how fakecloud's HTTP faces read requests and write
// answers: the API's error envelope, JSON bodies decoded strictly, body
// and query limits. The API, the admin API and the metadata service share
// it; it knows no resource.
package wire
