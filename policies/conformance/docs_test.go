package conformance_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polluxsim/polluxsim/policies/conformance"
)

// TestPythonGuideNamesEveryScenario: docs/writing-a-policy-in-python.md
// lists the suite's checks as `polluxsim conformance` prints them (every
// scenario by name, and the count with option-bounds), so the guide
// cannot fall behind when a scenario is added.
func TestPythonGuideNamesEveryScenario(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "writing-a-policy-in-python.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	scs := conformance.Scenarios()
	for _, sc := range scs {
		if !strings.Contains(doc, "`"+sc.Name+"`") {
			t.Errorf("docs/writing-a-policy-in-python.md does not name the scenario `%s`", sc.Name)
		}
	}
	if want := fmt.Sprintf("passes the conformance\nsuite (%d checks)", len(scs)+1); !strings.Contains(doc, want) {
		t.Errorf("docs/writing-a-policy-in-python.md does not say %q (the scenarios and option-bounds)", want)
	}
}
