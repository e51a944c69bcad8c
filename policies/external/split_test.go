package external

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"python3 policy.py", []string{"python3", "policy.py"}},
		{"  python3\t-u   x.py  ", []string{"python3", "-u", "x.py"}},
		{`python3 'my policy.py' --name "a b"`, []string{"python3", "my policy.py", "--name", "a b"}},
		{`a 'it''s' b`, []string{"a", "its", "b"}},
		{`a "say \"hi\" \n" c`, []string{"a", `say "hi" \n`, "c"}},
		{`a b\ c \'d`, []string{"a", "b c", "'d"}},
		{`a '' ""`, []string{"a", "", ""}},
		{`x $HOME *.py | y > z`, []string{"x", "$HOME", "*.py", "|", "y", ">", "z"}},
		{"", nil},
	} {
		got, err := Split(tc.in)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`a 'b`, `a "b`, `a b\`, `"a\"`} {
		if got, err := Split(bad); err == nil {
			t.Errorf("Split(%q) = %q, want an error", bad, got)
		}
	}
}
