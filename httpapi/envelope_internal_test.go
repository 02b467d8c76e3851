package httpapi

import "testing"

var envelopeSeeds = []struct {
	body  string
	plain bool // plainEnvelope accepts it
}{
	{`{"query":"{ agents { nodes { id } } }"}`, true},
	{` {"query" : "q", "variables" : {"in": {"a": [1, "}", {"b": null}]}}, "operationName": null} `, true},
	{`{"QUERY":"q","Variables":null,"extensions":{"persistedQuery":{"version":1}},"other":[1,2,{"x":"\""}]}`, true},
	{"{\n\t\"query\": \"q\\\"\",\r\n\"n\": -1.5e3, \"t\": true}", true},
	{`{}`, true},
	{`{"query":1}`, false},
	{`{"variables":"x"}`, false},
	{`{"operationName":{}}`, false},
	{`{"extensions":[1]}`, false},
	{`{"query":"a","query":1}`, false},
	{`{"query":1,"query":"a"}`, false}, // decoded: the last wins
	{`{"qu\u0065ry":1}`, false},
	{`{"variableſ":1}`, false},
	{`["query"]`, false},
	{`"query"`, false},
	{`{"query":"a"`, false},
	{`{"query":"a"}}`, false},
	{``, false},
	{`null`, false},
}

// TestPlainEnvelope: the common bodies take plainEnvelope's path, the rest
// the decoder's.
func TestPlainEnvelope(t *testing.T) {
	t.Parallel()
	for _, s := range envelopeSeeds {
		if got := plainEnvelope([]byte(s.body)); got != s.plain {
			t.Errorf("%s: plainEnvelope %t, want %t", s.body, got, s.plain)
		}
		if s.plain && decodeEnvelope([]byte(s.body)) != nil {
			t.Errorf("%s: plain, but the decoder refuses it", s.body)
		}
	}
}

// FuzzEnvelope: whatever plainEnvelope accepts, decoding accepts too, so
// checkEnvelope answers as it did when it always decoded.
func FuzzEnvelope(f *testing.F) {
	for _, s := range envelopeSeeds {
		f.Add([]byte(s.body))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if plainEnvelope(body) {
			if err := decodeEnvelope(body); err != nil {
				t.Fatalf("%q: plain, but the decoder answers %v", body, err)
			}
		}
	})
}
