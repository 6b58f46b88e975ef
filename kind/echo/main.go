// Command echo is the e2e-kind workload: an HTTP server that answers
// every request with the name of the pod that served it.
package main

import (
	"fmt"
	"log"
	"net/http"
	"os"
)

func main() {
	name, _ := os.Hostname()
	addr := ":8080"
	if a := os.Getenv("LISTEN"); a != "" {
		addr = a
	}
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "served by %s\n", name)
	})
	log.Fatal(http.ListenAndServe(addr, nil))
}
