// Package digest is the one home of the identity hash of inputs: a hex
// SHA-256 over length-prefixed parts, so that part boundaries count.
package digest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
)

// Parts returns the hex SHA-256 over the given parts, each prefixed by its
// length ("5:hello3:abc"), so that ("ab", "c") and ("a", "bc") differ.
func Parts(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Files accumulates the files a reader read: their names and contents.
// The zero value is ready to use; it is not safe for concurrent use.
type Files struct {
	names []string
	data  map[string][]byte
}

// Add records that the file called name (slash-separated, relative to the
// input's root) was read with this content; a second read of the same
// name replaces the first.
func (f *Files) Add(name string, data []byte) {
	if f.data == nil {
		f.data = map[string][]byte{}
	}
	if _, ok := f.data[name]; !ok {
		f.names = append(f.names, name)
	}
	f.data[name] = data
}

// Len is the number of files recorded.
func (f *Files) Len() int { return len(f.names) }

// Sum is Parts over (name, content) of every file recorded, in name order,
// so it does not depend on the order of reading.
func (f *Files) Sum() string {
	names := append([]string(nil), f.names...)
	sort.Strings(names)
	parts := make([][]byte, 0, 2*len(names))
	for _, n := range names {
		parts = append(parts, []byte(n), f.data[n])
	}
	return Parts(parts...)
}
