package external

import (
	"errors"
	"strings"
)

// Split breaks a command line into its words the way a POSIX shell would
// for a plain command, without a shell: words are separated by blanks;
// 'single quotes' keep everything literally; "double quotes" keep
// everything but a backslash before ", \, $ or `, which escapes it; a
// backslash outside quotes escapes the next character. Nothing else is
// interpreted: no variables, globs, pipes or redirections (those are
// literal characters). An unterminated quote or a trailing backslash is
// an error.
func Split(line string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\\':
			if i+1 == len(line) {
				return nil, errors.New("a trailing backslash")
			}
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("an unterminated single quote")
			}
			w.WriteString(line[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte("\"\\$`", line[i+1]) >= 0 {
					i++
				}
				w.WriteByte(line[i])
			}
			if i == len(line) {
				return nil, errors.New("an unterminated double quote")
			}
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}
