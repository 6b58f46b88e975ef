// Command echo is the e2e-kind workload: an HTTP server that answers
// every request with the name of the pod that served it. With -resolve
// NAME it looks the name up through the pod's resolver instead, prints
// the addresses and exits, so a scenario sees what the cluster's DNS
// answers.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

func main() {
	resolve := flag.String("resolve", "", "look this name up, print its addresses and exit")
	flag.Parse()
	if *resolve != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupHost(ctx, *resolve)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(strings.Join(addrs, " "))
		return
	}
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
