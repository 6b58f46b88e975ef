package contract

import (
	"net/url"
	"testing"
)

// BenchmarkCompile is the start-up cost: every schema of requests.json.
func BenchmarkCompile(b *testing.B) {
	for b.Loop() {
		if _, err := Compile(requests); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckService is one add_service body, the deepest schema.
func BenchmarkCheckService(b *testing.B) {
	c := Default()
	body := []byte(`{"protocol":"https","listen_port":443,"destination_port":80,"proxyprotocol":false,
		"http":{"certificates":[1],"cookie_lifetime":300,"cookie_name":"C","redirect_http":true,"sticky_sessions":true},
		"health_check":{"protocol":"http","port":80,"interval":15,"timeout":10,"retries":3,"http":{"domain":"example.com","path":"/","tls":false}}}`)
	for b.Loop() {
		if p := c.Check("POST", "/load_balancers/1/actions/add_service", url.Values{}, body); len(p) > 0 {
			b.Fatal(p)
		}
	}
}
