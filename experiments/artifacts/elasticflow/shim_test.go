package elasticflow

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// themisProgram builds the program of the artifact's themis_sim_jobs
// (minimise the largest (E + R inv_pos(T x)) / I over 0 <= x <= 1 with
// sum g x <= G) on seeded random jobs through the cvxpy stand-in, and
// prints its optimum, then the optimum found by bisection on the largest
// ratio (each ratio falls in its own x, so at a level t the least x per
// job is closed-form and feasibility is a sum), then the stand-in's
// largest ratio and GPU use at the point it returned.
const themisProgram = `
import numpy as np, cvxpy as cp
for seed, n, G in ((1, 3, 4), (2, 12, 16), (3, 50, 64)):
    rng = np.random.default_rng(seed)
    E = rng.uniform(0, 5000, n); R = rng.uniform(1e3, 1e5, n)
    T = rng.uniform(.5, 5, n); I = rng.uniform(1e3, 2e4, n); g = rng.integers(1, 9, n).astype(float)
    x = cp.Variable(n)
    terms = [(E[i] + R[i] * cp.inv_pos(T[i] * x[i])) / I[i] for i in range(n)]
    p = cp.Problem(cp.Minimize(cp.maximum(*terms)), [x >= 0, x <= 1, cp.sum(cp.multiply(g, x), axis=0) <= G])
    v = p.solve(solver="ECOS")
    lo, hi = 0.0, 1e12
    for _ in range(300):
        m = (lo + hi) / 2
        ok = bool((m * I > E).all())
        if ok:
            need = R / (T * (m * I - E))
            ok = bool((need <= 1).all()) and g @ need <= G
        lo, hi = (lo, m) if ok else (m, hi)
    xv = x.value
    print(v, hi, max((E[i] + R[i] / (T[i] * xv[i])) / I[i] for i in range(n)), g @ xv, G, p.status)
`

func TestCvxpyStandInFindsThemisOptimum(t *testing.T) {
	// The interpreter run.sh uses (Debian's, with its numpy and scipy),
	// else the first on PATH.
	py := ""
	for _, c := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(c, "-c", "import numpy, scipy.optimize").Run() == nil {
			py = c
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy and scipy (Debian python3-numpy python3-scipy)")
	}
	cmd := exec.Command(py, "-c", themisProgram)
	cmd.Env = append(cmd.Environ(), "PYTHONPATH="+filepath.Join("shim"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 3 {
		t.Fatalf("want 3 programs solved, got:\n%s", out)
	}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) != 6 || f[5] != "optimal" {
			t.Fatalf("line %q", l)
		}
		v := make([]float64, 5)
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				t.Fatal(err)
			}
		}
		solved, bisect, atPoint, used, gpus := v[0], v[1], v[2], v[3], v[4]
		if d := (solved - bisect) / bisect; d > 1e-6 || d < -1e-6 {
			t.Errorf("stand-in optimum %g, bisection %g", solved, bisect)
		}
		if d := (atPoint - solved) / solved; d > 1e-12 || d < -1e-12 || used > gpus*(1+1e-9) {
			t.Errorf("point: largest ratio %g (value %g), GPUs %g of %g", atPoint, solved, used, gpus)
		}
	}
}
