package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestPartsIsLengthPrefixed(t *testing.T) {
	sum := sha256.Sum256([]byte("2:ab1:c"))
	if got := Parts([]byte("ab"), []byte("c")); got != hex.EncodeToString(sum[:]) {
		t.Errorf("Parts(ab, c) = %s, want sha256 of %q", got, "2:ab1:c")
	}
	if Parts([]byte("ab"), []byte("c")) == Parts([]byte("a"), []byte("bc")) {
		t.Error("moving a boundary does not change the digest")
	}
	empty := sha256.Sum256(nil)
	if Parts() != hex.EncodeToString(empty[:]) {
		t.Error("no parts is not the digest of nothing")
	}
}

func TestFilesOrderFree(t *testing.T) {
	var a, b Files
	a.Add("x/placements.csv", []byte("1"))
	a.Add("x/validation-8.csv", []byte("2"))
	b.Add("x/validation-8.csv", []byte("2"))
	b.Add("x/placements.csv", []byte("1"))
	if a.Sum() != b.Sum() || a.Len() != 2 {
		t.Errorf("the order of reading changed the digest (%s, %s) or the count (%d)", a.Sum(), b.Sum(), a.Len())
	}
	want := Parts([]byte("x/placements.csv"), []byte("1"), []byte("x/validation-8.csv"), []byte("2"))
	if a.Sum() != want {
		t.Errorf("Sum = %s, want Parts over sorted (name, content) = %s", a.Sum(), want)
	}
	b.Add("x/placements.csv", []byte("changed"))
	if a.Sum() == b.Sum() || b.Len() != 2 {
		t.Error("an edited file did not change the digest")
	}
}
