package auth_test

import (
	"strings"
	"testing"

	"github.com/agenttrust/service/auth"
	"github.com/agenttrust/service/failure"
)

func TestParseBearer(t *testing.T) {
	t.Parallel()
	for header, want := range map[string]string{
		"Bearer att_sk_abcdefghijklmnop":     "att_sk_abcdefghijklmnop",
		"bearer  att_sk_abcdefghijklmnop ":   "att_sk_abcdefghijklmnop",
		"":                                   "",
		"Basic dXNlcjpwYXNz":                 "",
		"Bearer":                             "",
		"Bearer " + strings.Repeat("k", 600): "",
		"Bearer " + strings.Repeat("k", 257): "",
		"Bearer " + strings.Repeat("k", 256): strings.Repeat("k", 256),
		"Bearer att_sk_short":                "", // under 16 characters
		"Bearer att_sk_abc\x00defghijklmn":   "",
		"Bearer att_sk_abc\"defghijklmn":     "",
		"Bearer att_sk_abcdéfghijklmnop":     "",
	} {
		got, err := auth.ParseBearer(header)
		if got != want || (want == "") != (err != nil) {
			t.Errorf("%q: %q %v", header, got, err)
		}
		if err != nil && failure.CodeOf(err) != failure.Unauthenticated {
			t.Errorf("%q: code %s", header, failure.CodeOf(err))
		}
	}
}

func TestKeys(t *testing.T) {
	t.Parallel()
	a, b := auth.NewKey(), auth.NewKey()
	if a == b || !strings.HasPrefix(a, auth.KeyPrefix) || len(a) < len(auth.KeyPrefix)+50 {
		t.Fatalf("keys %q %q", a, b)
	}
	if !auth.Equal(auth.Hash(a), auth.Hash(a)) || auth.Equal(auth.Hash(a), auth.Hash(b)) {
		t.Fatal("hash comparison")
	}
}

func TestOrgInputValidate(t *testing.T) {
	t.Parallel()
	for name, ok := range map[string]bool{
		"acme":                   true,
		strings.Repeat("é", 200): true,
		"":                       false,
		strings.Repeat("x", 201): false,
		"bad \xff utf-8":         false,
	} {
		err := auth.OrgInput{Name: name}.Validate()
		if ok != (err == nil) {
			t.Errorf("%q: %v", name, err)
		}
		if fe := failure.As(err); err != nil && (fe == nil || fe.Code != failure.ValidationFailed || fe.FieldErrors[0].Field != "name") {
			t.Errorf("%q: want VALIDATION_FAILED on name, got %v", name, err)
		}
	}
}
