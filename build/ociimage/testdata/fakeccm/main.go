// Command fakeccm stands in for the CCM in the image builder's tests: a few
// hundred kilobytes, built like the real one (static, CGO_ENABLED=0) and
// linking the compiled-in CA roots the builder insists on.
package main

import (
	_ "golang.org/x/crypto/x509roots/fallback"
)

func main() {}
