package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// outputsDoc holds the notebook recipes the tests run.
const outputsDoc = "../../../docs/outputs.md"

// recipeBlocks are the code blocks of language lang in docs/outputs.md's
// section "Reading the tables in a notebook", joined, exactly as written.
func recipeBlocks(t *testing.T, lang string) string {
	t.Helper()
	data, err := os.ReadFile(outputsDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i := strings.Index(doc, "\n## Reading the tables in a notebook\n")
	if i < 0 {
		t.Fatalf("%s: no section \"Reading the tables in a notebook\"", outputsDoc)
	}
	sec := doc[i+1:]
	if j := strings.Index(sec[3:], "\n## "); j >= 0 {
		sec = sec[:j+3]
	}
	var blocks []string
	for rest := sec; ; {
		k := strings.Index(rest, "\n```"+lang+"\n")
		if k < 0 {
			break
		}
		rest = rest[k+len("\n```"+lang+"\n"):]
		end := strings.Index(rest, "\n```\n")
		if end < 0 {
			t.Fatalf("%s: a %s block without its end", outputsDoc, lang)
		}
		blocks = append(blocks, rest[:end+1])
		rest = rest[end:]
	}
	if len(blocks) == 0 {
		t.Fatalf("%s: no %s recipe", outputsDoc, lang)
	}
	return strings.Join(blocks, "\n")
}

// recipeOutputs makes what the recipes read in dir: a sweep out/sweep
// (ci), a run out/run (Tiresias on paper:1) and their CSV exports, the
// exports by the section's sh block as written (polluxsim on PATH).
func recipeOutputs(t *testing.T) string {
	t.Helper()
	bin := polluxsimBinary(t)
	dir := t.TempDir()
	if r := runBinary(t, dir, nil, "sweep", "--experiment", "ci", "--no-timing", "--quiet", "--out", "out/sweep"); r.code != 0 {
		t.Fatalf("sweep: exit %d: %s", r.code, r.stderr)
	}
	if r := runBinary(t, dir, nil, "run", "--policy", "tiresias", "--workload", "paper:1", "--no-timing", "--quiet", "--out", "out/run"); r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	cmd := exec.Command("sh", "-e", "-c", recipeBlocks(t, "sh"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the export commands: %v: %s", err, out)
	}
	return dir
}

// TestNotebookRecipes: docs/outputs.md's pandas recipe (on the CSV
// export, Debian's python3-pandas) and Polars recipe (nodejs-polars on
// the Parquet tables) run as written, and what they compute holds: one
// row per cell and no NaN in the per-cell means (observed=True), string
// and Int64 dtypes kept through the concatenation of a sweep and a run,
// Pollux's p read out of policy_options (-1, its default). Each part skips,
// saying why, when its tool is absent (.ci/run installs both).
func TestNotebookRecipes(t *testing.T) {
	python := pandasPython()
	node, nodeErr := exec.LookPath("node")
	if nodeErr == nil && exec.Command(node, "-e", "require('nodejs-polars')").Run() != nil {
		nodeErr = os.ErrNotExist
	}
	if python == "" && nodeErr != nil {
		t.Skip("neither python3 with pandas nor node with npm nodejs-polars: .ci/run installs them")
	}
	dir := recipeOutputs(t)
	t.Run("pandas", func(t *testing.T) {
		if python == "" {
			t.Skip("python3 cannot import pandas: apt-get install python3-pandas (.ci/run does)")
		}
		script := recipeBlocks(t, "python") + `
# The test's checks, after the recipe as written.
assert list(per_cell.index) == sorted(res.cell.unique()) and not per_cell.isna().any().any(), per_cell
assert len(per_cell) == 5, per_cell
for col, want in [("policy", "string"), ("run_id", "string"), ("workload", "Int64"), ("jct_s", "float64")]:
    assert str(jobs[col].dtype) == want, (col, jobs[col].dtype)
assert jobs.run_id.nunique() == len(res) + 1 and by_app.shape[0] == jobs.run_id.nunique(), by_app.shape
assert set(res.loc[res.policy == "pollux", "p"]) == {-1}, res.p
assert r.gpu_type.dropna().unique().tolist() == ["t4"], r.gpu_type.unique()
print("recipe checks passed")
`
		runRecipe(t, dir, python, "recipe.py", script)
	})
	t.Run("polars", func(t *testing.T) {
		if nodeErr != nil {
			t.Skipf("node cannot load npm nodejs-polars (NODE_PATH=%q): .ci/run installs it", os.Getenv("NODE_PATH"))
		}
		script := recipeBlocks(t, "js") + `
// The test's checks, after the recipe as written.
if (perCell.height !== 5 || perCell.getColumn("avg_jct_s").toArray().some((v) => !(v > 0))) {
  throw new Error("per-cell means: " + perCell.toString());
}
const ps = withP.filter(pl.col("policy").cast(pl.Utf8).eq(pl.lit("pollux"))).getColumn("p").toArray();
if (ps.length === 0 || ps.some((v) => v !== -1)) {
  throw new Error("Pollux's p: " + ps);
}
console.log("recipe checks passed");
`
		runRecipe(t, dir, node, "recipe.cjs", script)
	})
}

// runRecipe runs script, saved as name in dir, with interpreter there;
// it must end by printing "recipe checks passed".
func runRecipe(t *testing.T, dir, interpreter, name, script string) {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(interpreter, path)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil || !strings.Contains(string(out), "recipe checks passed") {
		t.Fatalf("the recipe %s failed: %v", name, err)
	}
}
