package release

import (
	"debug/buildinfo"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"runtime/debug"
	"time"
)

// spdxDoc is the part of an SPDX 2.3 JSON document an SBOM of a Go binary
// needs: one package per module compiled in, the binary's module
// describing them all.
type spdxDoc struct {
	SPDXVersion       string         `json:"spdxVersion"`
	DataLicense       string         `json:"dataLicense"`
	SPDXID            string         `json:"SPDXID"`
	Name              string         `json:"name"`
	DocumentNamespace string         `json:"documentNamespace"`
	CreationInfo      spdxCreation   `json:"creationInfo"`
	Packages          []spdxPackage  `json:"packages"`
	Relationships     []spdxRelation `json:"relationships"`
}

type spdxCreation struct {
	Created  string   `json:"created"`
	Creators []string `json:"creators"`
}

type spdxPackage struct {
	SPDXID           string       `json:"SPDXID"`
	Name             string       `json:"name"`
	VersionInfo      string       `json:"versionInfo"`
	DownloadLocation string       `json:"downloadLocation"`
	FilesAnalyzed    bool         `json:"filesAnalyzed"`
	ExternalRefs     []spdxExtRef `json:"externalRefs"`
	Checksums        []spdxSum    `json:"checksums,omitempty"`
	Comment          string       `json:"comment,omitempty"`
}

type spdxExtRef struct {
	Category string `json:"referenceCategory"`
	Type     string `json:"referenceType"`
	Locator  string `json:"referenceLocator"`
}

type spdxSum struct {
	Algorithm string `json:"algorithm"`
	Value     string `json:"checksumValue"`
}

type spdxRelation struct {
	Element string `json:"spdxElementId"`
	Type    string `json:"relationshipType"`
	Related string `json:"relatedSpdxElement"`
}

var spdxIDChars = regexp.MustCompile(`[^A-Za-z0-9.-]+`)

// SBOM is an SPDX 2.3 JSON document of the Go binary at path: the Go
// toolchain and every module the build info names, with its version and
// Go checksum, as package URLs. version is the release's, for the main
// module, which a build from a work tree records as (devel).
func SBOM(path, version string, created time.Time) ([]byte, error) {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("build info of %s: %w", path, err)
	}
	return sbomOf(info, version, created)
}

func sbomOf(info *debug.BuildInfo, version string, created time.Time) ([]byte, error) {
	mainPkg := pkg("SPDXRef-Package-main", info.Main.Path, version, "", "the binary's own module, built from this release")
	doc := spdxDoc{
		SPDXVersion: "SPDX-2.3", DataLicense: "CC0-1.0", SPDXID: "SPDXRef-DOCUMENT",
		Name:              info.Main.Path + "@" + version,
		DocumentNamespace: "https://" + info.Main.Path + "/sbom/" + url.PathEscape(version),
		CreationInfo:      spdxCreation{Created: created.UTC().Format(time.RFC3339), Creators: []string{"Tool: hcloud-ccm build/release"}},
		Packages: []spdxPackage{mainPkg,
			pkg("SPDXRef-Package-go", "golang.org/toolchain", info.GoVersion, "", "the Go toolchain and standard library it was built with")},
		Relationships: []spdxRelation{
			{"SPDXRef-DOCUMENT", "DESCRIBES", mainPkg.SPDXID},
			{mainPkg.SPDXID, "DEPENDS_ON", "SPDXRef-Package-go"},
		},
	}
	for _, dep := range info.Deps {
		m := dep
		if dep.Replace != nil {
			m = dep.Replace
		}
		p := pkg("SPDXRef-Package-"+spdxIDChars.ReplaceAllString(m.Path+"-"+m.Version, "-"), m.Path, m.Version, m.Sum, "")
		doc.Packages = append(doc.Packages, p)
		doc.Relationships = append(doc.Relationships, spdxRelation{mainPkg.SPDXID, "DEPENDS_ON", p.SPDXID})
	}
	return json.MarshalIndent(doc, "", "  ")
}

// pkg is a Go module as an SPDX package; sum is its go.sum hash (h1:…),
// kept as a comment: SPDX has no algorithm for it.
func pkg(id, path, version, sum, comment string) spdxPackage {
	if sum != "" {
		comment = "go.sum " + sum
	}
	return spdxPackage{
		SPDXID: id, Name: path, VersionInfo: version, DownloadLocation: "NOASSERTION", Comment: comment,
		ExternalRefs: []spdxExtRef{{Category: "PACKAGE-MANAGER", Type: "purl", Locator: "pkg:golang/" + path + "@" + version}},
	}
}
