package external

import (
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/polluxsim/polluxsim/internal/digest"
)

// CodeDigest is the digest of the code an external policy's command runs,
// as far as the command names it: every word of argv (the program
// included) that names an existing regular file, relative to the working
// directory as when the command is run, is read and its SHA-256 taken;
// the digest is digest.Parts over each such word's position, the word as
// written and its content's SHA-256. It is "" when no word names a file
// (a program found on PATH with no script argument): the run's identity
// is then its command line alone. Files the script itself opens or
// imports (a module beside it) are not covered: name them on the command
// line, or version them, to have their edits change the run_id.
func CodeDigest(argv []string) (string, error) {
	var parts [][]byte
	for i, w := range argv {
		st, err := os.Stat(w)
		if err != nil || !st.Mode().IsRegular() {
			continue // a flag, a program on PATH, a folder: not code we can read
		}
		sum, err := fileSHA256(w)
		if err != nil {
			return "", fmt.Errorf("command word %d %q: %w", i, w, err)
		}
		parts = append(parts, []byte(strconv.Itoa(i)), []byte(w), sum)
	}
	if len(parts) == 0 {
		return "", nil
	}
	return digest.Parts(parts...), nil
}

// fileSHA256 is the SHA-256 of a file's content, read as a stream (a
// large file costs time, not memory).
func fileSHA256(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}
