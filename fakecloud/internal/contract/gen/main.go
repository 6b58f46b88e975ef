// Command gen writes the request schemas of an OpenAPI description:
// go run ./gen cloud.spec.json requests.json
package main

import (
	"fmt"
	"os"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/internal/contract"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gen SPEC OUT")
		os.Exit(2)
	}
	spec, err := os.ReadFile(os.Args[1])
	if err == nil {
		var out []byte
		if out, err = contract.Extract(spec); err == nil {
			err = os.WriteFile(os.Args[2], out, 0o644)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
