package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/hcloudlab/hcloud-ccm/fakecloud/adminclient"
)

// invocation is what a command gets: its arguments, where to write, and
// for a command that scripts a running fakecloud, the client flags and an
// admin client.
type invocation struct {
	name   string   // the first word, as errors name the command
	args   []string // the arguments after the command's words, without the client flags
	getenv func(string) string
	stdout io.Writer
	stderr io.Writer
	flags  clientFlags
	admin  *adminclient.Client
}

// clientFlags are the flags every command that scripts a running
// fakecloud accepts.
type clientFlags struct {
	url, adminToken  string
	project          string // the project a command inspects or changes
	file             string // -f: the rule, fault or event
	follow           bool
	method, template string
	status, limit    int
	remaining        int     // rate-limit: -1 keeps it
	refill           float64 // rate-limit: -1 keeps it
}

// parseClient reads the client flags, wherever they are, and makes the
// admin client; it returns the other arguments, args[0] first.
func (in *invocation) parseClient(args []string) ([]string, error) {
	fs := flag.NewFlagSet("fakecloud "+args[0], flag.ContinueOnError)
	fs.SetOutput(in.stderr)
	f := &in.flags
	f.url = in.getenv("FAKECLOUD_URL")
	if f.url == "" {
		f.url = "http://127.0.0.1:8080"
	}
	fs.StringVar(&f.url, "url", f.url, "fakecloud's address (env FAKECLOUD_URL)")
	fs.StringVar(&f.adminToken, "admin-token", in.getenv("FAKECLOUD_ADMIN_TOKEN"), "admin token (env FAKECLOUD_ADMIN_TOKEN)")
	fs.StringVar(&f.project, "project", in.getenv("FAKECLOUD_PROJECT"), "the project to inspect or change, by name; the default project when empty (env FAKECLOUD_PROJECT)")
	fs.StringVar(&f.file, "f", "", "read the rule, fault or event from this file")
	fs.BoolVar(&f.follow, "follow", false, "journal: keep printing new entries")
	fs.StringVar(&f.method, "method", "", "journal: only this method")
	fs.StringVar(&f.template, "template", "", "journal: only this route, e.g. /servers/{id}")
	fs.IntVar(&f.status, "status", 0, "journal: only this status")
	fs.IntVar(&f.limit, "limit", 0, "journal: only the newest N")
	fs.IntVar(&f.remaining, "remaining", -1, "rate-limit: set the remaining budget")
	fs.Float64Var(&f.refill, "refill", -1, "rate-limit: set the refill rate in requests per second")
	words := args[:1:1]
	for rest := args[1:]; len(rest) > 0; {
		if err := fs.Parse(rest); err != nil {
			return nil, err
		}
		if rest = fs.Args(); len(rest) > 0 {
			words, rest = append(words, rest[0]), rest[1:]
		}
	}
	in.admin = adminclient.New(f.url, f.adminToken, &http.Client{Timeout: 30 * time.Second}).Project(f.project)
	return words, nil
}

// clientFlagsLast moves leading --url and --admin-token flags behind the
// subcommand, so "fakecloud --url U faults" works like "fakecloud faults --url U".
func clientFlagsLast(args []string) []string {
	var lead []string
	for len(args) > 0 {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
		if !strings.HasPrefix(args[0], "-") || (name != "url" && name != "admin-token") {
			break
		}
		n := 2
		if hasValue || len(args) < 2 {
			n = 1
		}
		lead, args = append(lead, args[:n]...), args[n:]
	}
	if len(lead) == 0 || len(args) == 0 {
		return append(lead, args...)
	}
	return append(append([]string{args[0]}, lead...), args[1:]...)
}

// arg is positional argument i, named what when it is missing.
func (in *invocation) arg(i int, what string) (string, error) {
	if i < len(in.args) {
		return in.args[i], nil
	}
	return "", fmt.Errorf("%s: missing %s", in.name, what)
}

// document is argument i as inline YAML or JSON, or the -f file.
func (in *invocation) document(i int, what string) ([]byte, error) {
	if in.flags.file != "" {
		return os.ReadFile(in.flags.file)
	}
	s, err := in.arg(i, what)
	return []byte(s), err
}

// file is the content of the file named by argument i.
func (in *invocation) file(i int, what string) ([]byte, error) {
	name, err := in.arg(i, what)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(name)
}

// printJSON prints v indented, as fakecloud writes it (HTML unescaped),
// and then a blank line, as the client commands have always printed it.
func (in *invocation) printJSON(v any) error {
	enc := json.NewEncoder(in.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := io.WriteString(in.stdout, "\n")
	return err
}
