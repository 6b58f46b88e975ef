package doctor

import (
	"bytes"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	r := Report{Findings: []Finding{{Check: "token", Status: Fail, Subject: "token", Message: "read-only", Fix: "a Read & Write token"},
		{Check: "node", Status: OK, Subject: "node/a", Message: "server a"}}, Requests: 6}
	var text bytes.Buffer
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	want := "STATUS  CHECK  SUBJECT  MESSAGE\n" +
		"FAIL    token  token    read-only\n" +
		"                        fix: a Read & Write token\n" +
		"OK      node   node/a   server a\n" +
		"\n1 FAIL, 0 WARN, 1 OK; 6 API requests\n"
	if text.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", text.String(), want)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, Report{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"findings": []`) {
		t.Errorf("an empty report is %s; want findings []", js.String())
	}
	js.Reset()
	if err := WriteJSON(&js, r); err != nil || !strings.Contains(js.String(), `"fix": "a Read & Write token"`) {
		t.Errorf("JSON %s (%v)", js.String(), err)
	}
}
