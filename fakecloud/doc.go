// Package fakecloud is an in-memory simulator of the Hetzner Cloud API that
// unmodified clients such as hcloud-go can be pointed at.
//
// New returns an http.Handler, so a test starts it with httptest.NewServer and
// points hcloud.WithEndpoint at the server's URL plus "/v1".
package fakecloud
