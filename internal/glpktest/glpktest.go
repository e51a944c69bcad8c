// Package glpktest solves CPLEX LP files with GLPK's glpsol, for tests that
// check this project's solvers against an independent one. Tests skip,
// saying so, when glpsol (Debian package glpk-utils) is not installed.
package glpktest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// Path returns glpsol's path or skips the test.
func Path(tb testing.TB) string {
	tb.Helper()
	p, err := exec.LookPath("glpsol")
	if err != nil {
		tb.Skip("glpsol (Debian package glpk-utils) not installed: skipping the comparison with GLPK")
	}
	return p
}

var objectiveRE = regexp.MustCompile(`Objective:\s+obj = (\S+)`)

// Solve writes lp (a CPLEX LP program whose objective row is named obj) to
// base.lp, solves it with glpsol and returns the objective value; status is
// the optimality line glpsol must report ("OPTIMAL" for an LP, "INTEGER
// OPTIMAL" for a MIP).
func Solve(glpsol, base string, lp []byte, status string) (float64, error) {
	if err := os.WriteFile(base+".lp", lp, 0o644); err != nil {
		return 0, err
	}
	out, err := exec.Command(glpsol, "--lp", base+".lp", "-o", base+".out").CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("glpsol: %v\n%s", err, out)
	}
	res, err := os.ReadFile(base + ".out")
	if err != nil {
		return 0, err
	}
	if !bytes.Contains(res, []byte(status)) {
		return 0, fmt.Errorf("glpsol did not prove optimality:\n%s", res)
	}
	m := objectiveRE.FindSubmatch(res)
	if m == nil {
		return 0, fmt.Errorf("no objective in glpsol's output:\n%s", res)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}
