package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud"
)

// admin talks to a running fakecloud's admin API.
type admin struct {
	base  string
	token string
	http  *http.Client
}

// call sends a request and returns the body of a 2xx answer; any other
// answer becomes an error with the API's code and message.
func (a admin) call(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, a.base+"/_fakecloud"+path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		var env struct {
			Error struct{ Code, Message string }
		}
		if json.Unmarshal(data, &env) == nil && env.Error.Code != "" {
			return nil, fmt.Errorf("%s %s: %s: %s", method, path, env.Error.Code, env.Error.Message)
		}
		return nil, fmt.Errorf("%s %s: HTTP %d: %s", method, path, resp.StatusCode, strings.TrimSpace(string(data)))
	}
	return data, nil
}

// client runs the subcommands that script a running fakecloud.
func client(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakecloud "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	base := getenv("FAKECLOUD_URL")
	if base == "" {
		base = "http://127.0.0.1:8080"
	}
	fs.StringVar(&base, "url", base, "fakecloud's address (env FAKECLOUD_URL)")
	token := fs.String("admin-token", getenv("FAKECLOUD_ADMIN_TOKEN"), "admin token (env FAKECLOUD_ADMIN_TOKEN)")
	file := fs.String("f", "", "read the rule, fault or event from this file")
	follow := fs.Bool("follow", false, "journal: keep printing new entries")
	method := fs.String("method", "", "journal: only this method")
	template := fs.String("template", "", "journal: only this route, e.g. /servers/{id}")
	status := fs.Int("status", 0, "journal: only this status")
	limit := fs.Int("limit", 0, "journal: only the newest N")
	remaining := fs.Int("remaining", -1, "rate-limit: set the remaining budget")
	refill := fs.Float64("refill", -1, "rate-limit: set the refill rate in requests per second")
	cmd, rest := args[0], args[1:]
	var pos []string
	for len(rest) > 0 {
		if err := fs.Parse(rest); err != nil {
			return err
		}
		rest = fs.Args()
		if len(rest) > 0 {
			pos, rest = append(pos, rest[0]), rest[1:]
		}
	}
	a := admin{base: strings.TrimSuffix(strings.TrimSuffix(base, "/"), "/v1"), token: *token, http: &http.Client{Timeout: 30 * time.Second}}
	arg := func(i int, what string) (string, error) {
		if i < len(pos) {
			return pos[i], nil
		}
		return "", fmt.Errorf("%s: missing %s", cmd, what)
	}
	// document is an inline YAML/JSON argument or the -f file.
	document := func(i int, what string) ([]byte, error) {
		if *file != "" {
			return os.ReadFile(*file)
		}
		s, err := arg(i, what)
		return []byte(s), err
	}
	// sendFile sends the file named by argument i.
	sendFile := func(i int, what, method, path string) error {
		name, err := arg(i, what)
		if err != nil {
			return err
		}
		doc, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		_, err = a.call(ctx, method, path, doc)
		return err
	}
	printJSON := func(data []byte) error {
		var out bytes.Buffer
		if err := json.Indent(&out, data, "", "  "); err != nil {
			_, err = stdout.Write(data)
			return err
		}
		out.WriteByte('\n')
		_, err := stdout.Write(out.Bytes())
		return err
	}
	switch cmd {
	case "faults":
		sub := "list"
		if len(pos) > 0 {
			sub = pos[0]
		}
		switch sub {
		case "list":
			data, err := a.call(ctx, "GET", "/faults", nil)
			if err != nil {
				return err
			}
			return printJSON(data)
		case "add", "add-action":
			doc, err := document(1, "rule (YAML or JSON)")
			if err != nil {
				return err
			}
			path := "/faults"
			if sub == "add-action" {
				path = "/action-faults"
			}
			data, err := a.call(ctx, "POST", path, doc)
			if err != nil {
				return err
			}
			return printJSON(data)
		case "rm":
			id, err := arg(1, "fault ID")
			if err != nil {
				return err
			}
			_, err = a.call(ctx, "DELETE", "/faults/"+url.PathEscape(id), nil)
			return err
		case "clear":
			_, err := a.call(ctx, "DELETE", "/faults", nil)
			return err
		}
		return fmt.Errorf("faults: unknown subcommand %q (list, add, add-action, rm, clear)", sub)
	case "event":
		doc, err := document(0, "event (YAML or JSON)")
		if err != nil {
			return err
		}
		_, err = a.call(ctx, "POST", "/events", doc)
		return err
	case "scenario":
		return sendFile(0, "scenario file", "POST", "/scenarios")
	case "seed":
		return sendFile(0, "seed world file", "POST", "/seed")
	case "reset":
		to := "empty"
		if len(pos) > 0 {
			to = pos[0]
		}
		_, err := a.call(ctx, "POST", "/reset", []byte(`{"to":`+strconv.Quote(to)+`}`))
		return err
	case "state":
		if len(pos) > 0 && pos[0] == "import" {
			return sendFile(1, "snapshot file", "PUT", "/state")
		}
		data, err := a.call(ctx, "GET", "/state", nil)
		if err != nil {
			return err
		}
		_, err = stdout.Write(append(data, '\n'))
		return err
	case "rate-limit":
		method, body := "GET", []byte(nil)
		if *remaining >= 0 || *refill >= 0 {
			req := map[string]any{}
			if *remaining >= 0 {
				req["remaining"] = *remaining
			}
			if *refill >= 0 {
				req["refill"] = *refill
			}
			method, body = "PUT", mustMarshal(req)
		}
		data, err := a.call(ctx, method, "/rate-limit", body)
		if err != nil {
			return err
		}
		return printJSON(data)
	case "counters":
		data, err := a.call(ctx, "GET", "/counters", nil)
		if err != nil {
			return err
		}
		var out struct{ Counters []fakecloud.Counter }
		if err := json.Unmarshal(data, &out); err != nil {
			return err
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "COUNT\tMETHOD\tROUTE\tSTATUS")
		for _, c := range out.Counters {
			fmt.Fprintf(tw, "%d\t%s\t%s\t%d\n", c.Count, c.Method, c.Template, c.Status)
		}
		return tw.Flush()
	case "journal":
		return journal(ctx, a, stdout, *follow, *method, *template, *status, *limit)
	}
	return fmt.Errorf("unknown command %q; see fakecloud help", cmd)
}

// journal prints journal entries, and with follow keeps printing new ones
// until ctx ends.
func journal(ctx context.Context, a admin, stdout io.Writer, follow bool, method, template string, status, limit int) error {
	var since uint64
	for {
		q := url.Values{}
		q.Set("since", strconv.FormatUint(since, 10))
		if method != "" {
			q.Set("method", method)
		}
		if template != "" {
			q.Set("template", template)
		}
		if status != 0 {
			q.Set("status", strconv.Itoa(status))
		}
		if limit > 0 && since == 0 {
			q.Set("limit", strconv.Itoa(limit))
		}
		data, err := a.call(ctx, "GET", "/journal?"+q.Encode(), nil)
		if err != nil {
			if follow && errors.Is(ctx.Err(), context.Canceled) {
				return nil
			}
			return err
		}
		var out struct{ Entries []fakecloud.JournalEntry }
		if err := json.Unmarshal(data, &out); err != nil {
			return err
		}
		for _, e := range out.Entries {
			fault := ""
			if e.Fault != 0 {
				fault = " fault=" + strconv.Itoa(e.Fault)
			}
			fmt.Fprintf(stdout, "%d %s %-6s %-45s %d %s%s\n", e.Seq, e.Time.Format("15:04:05.000"), e.Method, e.Path, e.Status, time.Duration(e.Duration).Round(time.Microsecond), fault)
			since = e.Seq
		}
		if !follow {
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(500 * time.Millisecond):
		}
	}
}

func mustMarshal(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
