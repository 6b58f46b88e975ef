// Package fidelity says which Hetzner Cloud API fakecloud simulates: the
// OpenAPI description it is checked against, the last entry of the API's
// changelog it follows, and the day its catalogue was last compared with
// the public record.
package fidelity

import "fmt"

// API names the API fakecloud is faithful to.
type API struct {
	// Description is the version and publication of the vendored OpenAPI
	// description (testdata/openapi).
	Description string `json:"description"`
	// DescriptionSHA256 is its checksum.
	DescriptionSHA256 string `json:"description_sha256"`
	// Changelog is the date of the last entry of the API's changelog that
	// fakecloud follows, and ChangelogEntry its title.
	Changelog      string `json:"changelog"`
	ChangelogEntry string `json:"changelog_entry"`
	// Catalogue is the day the catalogue (server types, locations,
	// datacenters) was last compared with the public record.
	Catalogue string `json:"catalogue"`
}

// Simulated is the API this fakecloud simulates.
var Simulated = API{
	Description:       "Hetzner Cloud API 1.0.0, OpenAPI description of July 2026",
	DescriptionSHA256: "55d9d6d36d6fccfcba4dd80d0a345f8d9f3655c12ca09540d582c9b055b35457",
	Changelog:         "2026-11-02",
	ChangelogEntry:    "Removing the deprecated field",
	Catalogue:         "2026-11-27",
}

// String is the line --version prints.
func (a API) String() string {
	return fmt.Sprintf("the Hetzner Cloud API as of %s (%s; changelog followed to %s, %q; catalogue of %s)",
		a.Changelog, a.Description, a.Changelog, a.ChangelogEntry, a.Catalogue)
}
