package apps

import (
	"bytes"
	"errors"
	"testing"
)

func TestSecretBoxSealsAndOpens(t *testing.T) {
	key, err := ParseSecretKey(NewSecretKey())
	if err != nil {
		t.Fatal(err)
	}
	box, err := NewSecretBox(key)
	if err != nil {
		t.Fatal(err)
	}
	a, err := box.Seal([]byte("tr-s3cret"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := box.Seal([]byte("tr-s3cret"))
	if bytes.Equal(a, b) || bytes.Contains(a, []byte("tr-s3cret")) {
		t.Fatal("a sealed secret must not show it, and two seals must differ")
	}
	got, err := box.Open(a)
	if err != nil || string(got) != "tr-s3cret" {
		t.Fatalf("open: %q, %v", got, err)
	}
	a[len(a)-1] ^= 1
	if _, err := box.Open(a); err == nil {
		t.Fatal("a changed byte must not open")
	}
	other, _ := ParseSecretKey(NewSecretKey())
	otherBox, _ := NewSecretBox(other)
	if _, err := otherBox.Open(b); err == nil {
		t.Fatal("another key must not open it")
	}
	none, _ := NewSecretBox(nil)
	if _, err := none.Seal([]byte("x")); !errors.Is(err, ErrNoSecretKey) {
		t.Fatalf("no key: %v", err)
	}
}

func TestParseSecretKey(t *testing.T) {
	for _, bad := range []string{"not base64!", "c2hvcnQ=", ""} {
		if _, err := ParseSecretKey(bad); err == nil {
			t.Fatalf("%q must be refused", bad)
		}
	}
}
