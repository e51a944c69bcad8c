package profiles

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/polluxsim/polluxsim/internal/digest"
	"github.com/polluxsim/polluxsim/internal/inputfile"
	"github.com/polluxsim/polluxsim/models"
)

// File names of the reference format inside traces/<app>/.
const (
	PlacementsFile  = "placements.csv"
	ScalabilityFile = "scalability.csv"
	validationGlob  = "validation-*.csv"
)

// errNotApp marks a folder with none of an application's files.
var errNotApp = errors.New("not an application folder")

// Load reads every application of a data set in the reference (adaptdl)
// format. dir is either the data root (holding traces/) or the traces/
// folder itself. Each subfolder traces/<app>/ with a placements.csv and at
// least one validation-<B>.csv becomes one App (see LoadApp); subfolders
// with none of these files, and plain files such as philly.csv, are
// ignored.
func Load(dir string) (*Set, error) {
	return loadFS(tree{os.DirFS(dir), dir, &digest.Files{}})
}

// LoadFS reads a data set in the reference format from fsys, whose root
// is the data root (holding traces/) or the traces/ folder itself, as
// Load does. source becomes the Set's Source and prefixes the file names
// in messages.
func LoadFS(fsys fs.FS, source string) (*Set, error) {
	return loadFS(tree{fsys, source, &digest.Files{}})
}

// tree is a file system with the name it is shown under in messages, and
// the record of the files read from it (for the Set's Digest).
type tree struct {
	fsys    fs.FS
	display string
	read    *digest.Files
}

// readFile reads the slash-separated path rel of t, bounded, and records
// it for the digest.
func (t tree) readFile(rel string) ([]byte, error) {
	data, err := inputfile.ReadFS(t.fsys, rel)
	if err == nil {
		t.read.Add(rel, data)
	}
	return data, err
}

// name is how the slash-separated path rel inside t appears in messages.
func (t tree) name(rel string) string {
	if rel == "." {
		return t.display
	}
	return filepath.Join(t.display, filepath.FromSlash(rel))
}

func loadFS(t tree) (*Set, error) {
	traces := "."
	if st, err := fs.Stat(t.fsys, "traces"); err == nil && st.IsDir() {
		traces = "traces"
	}
	entries, err := fs.ReadDir(t.fsys, traces)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("cannot read profiles: %s: %w", t.name(traces), err)
	}
	set := &Set{Source: t.display, Apps: map[string]*App{}}
	for _, e := range entries {
		rel := path.Join(traces, e.Name())
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if st, err := fs.Stat(t.fsys, rel); err != nil || !st.IsDir() {
			continue
		}
		if err := checkAppName(e.Name()); err != nil {
			// Named in every message about the application: one line each.
			return nil, fmt.Errorf("%s: application folder %q: %w", t.name(traces), e.Name(), err)
		}
		app, err := loadApp(t, rel, e.Name())
		if errors.Is(err, errNotApp) {
			continue
		}
		if err != nil {
			return nil, err
		}
		set.Apps[app.Name] = app
	}
	set.Digest = t.read.Sum()
	if len(set.Apps) == 0 {
		return nil, fmt.Errorf("%s: no application folders found (want traces/<app>/ with %s and validation-<batch>.csv)", t.name(traces), PlacementsFile)
	}
	return set, nil
}

// checkAppName refuses an application (folder) name that is not valid
// UTF-8 or holds control characters such as a newline.
func checkAppName(name string) error {
	if !utf8.ValidString(name) {
		return errors.New("the name is not valid UTF-8")
	}
	if strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return errors.New("the name has control characters")
	}
	return nil
}

// LoadApp reads one application folder in the reference format: its name
// is the folder's name. placements.csv and at least one
// validation-<B>.csv are required; scalability.csv is optional (without it,
// unmeasured placements are interpolated from the placement rows alone).
//
// The App's limits follow the reference simulator: InitBatch and MaxBatch
// are the smallest and largest validated batch sizes, MinLocal and
// MaxLocal the smallest and largest local_bsz of placements.csv. The six
// reference applications get the reference's constants (see
// ReferenceConstants); others train for as many epochs as their shortest
// validation run has rows.
func LoadApp(dir string) (*App, error) {
	if err := checkAppName(filepath.Base(dir)); err != nil {
		return nil, fmt.Errorf("application folder %q: %w", dir, err)
	}
	return loadApp(tree{os.DirFS(dir), dir, &digest.Files{}}, ".", filepath.Base(dir))
}

// loadApp reads the application folder dir of t (see LoadApp).
func loadApp(t tree, dir, name string) (*App, error) {
	pPath := path.Join(dir, PlacementsFile)
	sPath := path.Join(dir, ScalabilityFile)
	vPaths, err := fs.Glob(t.fsys, path.Join(dir, validationGlob))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name(dir), err)
	}
	sort.Strings(vPaths)
	typed, err := fs.Glob(t.fsys, path.Join(dir, typedGlob))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", t.name(dir), err)
	}
	sort.Strings(typed)
	_, pErr := fs.Stat(t.fsys, pPath)
	_, sErr := fs.Stat(t.fsys, sPath)
	if errors.Is(pErr, fs.ErrNotExist) && errors.Is(sErr, fs.ErrNotExist) && len(vPaths) == 0 && len(typed) == 0 {
		return nil, fmt.Errorf("%s: %w", t.name(dir), errNotApp)
	}
	if pErr != nil && !(errors.Is(pErr, fs.ErrNotExist) && len(typed) > 0) {
		return nil, fileError(t.name(pPath), pErr)
	}
	if len(vPaths) == 0 {
		return nil, fmt.Errorf("%s: missing file: no validation-<batch>.csv (one training curve per validated total batch size is required)", t.name(dir))
	}
	validation := map[int][]ValidationRow{}
	files := map[int]string{}
	for _, vPath := range vPaths {
		shown := t.name(vPath)
		b, err := validatedBatch(path.Base(vPath))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", shown, err)
		}
		if other, dup := files[b]; dup {
			return nil, fmt.Errorf("%s: batch size %d is also validated by %s", shown, b, other)
		}
		data, err := t.readFile(vPath)
		if err != nil {
			return nil, fileError(shown, err)
		}
		rows, err := ParseValidation(shown, data)
		if err != nil {
			return nil, err
		}
		files[b], validation[b] = shown, rows
	}
	var app *App
	if pErr == nil {
		if app, err = tableApp(t, dir, name, PlacementsFile, ScalabilityFile, validation); err != nil {
			return nil, err
		}
	}
	// The Sia artifact's layout: placements-<type>.csv and
	// scalability-<type>.csv per GPU type, sharing the validation files.
	for _, tp := range typed {
		sfx := strings.TrimSuffix(strings.TrimPrefix(path.Base(tp), "placements-"), ".csv")
		if sfx == supersededType {
			continue
		}
		typ, err := CanonicalType(sfx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.name(tp), err)
		}
		a, err := tableApp(t, dir, name, path.Base(tp), "scalability-"+sfx+".csv", validation)
		if err != nil {
			return nil, err
		}
		a.Type = typ
		if app == nil {
			app = a // no unsuffixed tables: the first type stands for the application
		}
		if app.ByType == nil {
			app.ByType = map[string]*App{}
		}
		if _, dup := app.ByType[typ]; dup {
			return nil, fmt.Errorf("%s: a second table for GPU type %s", t.name(tp), typ)
		}
		app.ByType[typ] = a
	}
	if app != nil && app.Type != "" && app.Type != T4 && app.ByType[T4] != nil {
		// Prefer the T4 tables as the application's own, like the
		// unsuffixed files, so that a single-type cluster means T4.
		base := app.ByType[T4]
		base.ByType, app.ByType = app.ByType, nil
		app = base
	}
	return app, nil
}

// Sia-layout file names: typedGlob finds the per-type placement tables;
// supersededType is the artifact's suffix whose tables dgx-ext extends
// (FORMAT of the artifact: "use this one"), skipped.
const (
	typedGlob      = "placements-*.csv"
	supersededType = "dgx"
)

// tableApp builds the application from one placements file and an
// optional scalability file of folder dir with the given validation runs.
func tableApp(t tree, dir, name, placementsFile, scalabilityFile string, validation map[int][]ValidationRow) (*App, error) {
	pPath := path.Join(dir, placementsFile)
	sPath := path.Join(dir, scalabilityFile)
	pData, err := t.readFile(pPath)
	if err != nil {
		return nil, fileError(t.name(pPath), err)
	}
	typed := placementsFile != PlacementsFile // Sia layout: repeated rows are averaged
	placements, err := parsePlacements(t.name(pPath), pData, typed)
	if err != nil {
		return nil, err
	}
	var scalability []ScalabilityRow
	sData, sErr := t.readFile(sPath)
	switch {
	case sErr == nil:
		if scalability, err = parseScalability(t.name(sPath), sData, typed); err != nil {
			return nil, err
		}
	case !errors.Is(sErr, fs.ErrNotExist):
		return nil, fileError(t.name(sPath), sErr)
	}
	app, err := NewApp(name, placements, scalability, validation)
	if err != nil {
		label := t.name(dir)
		if typed {
			label = t.name(pPath)
		}
		return nil, fmt.Errorf("%s: %w", label, err)
	}
	return app, nil
}

func fileError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: missing file", path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", path, err)
}

// validatedBatch reads B from a file name validation-<B>.csv.
func validatedBatch(base string) (int, error) {
	s := strings.TrimSuffix(strings.TrimPrefix(base, "validation-"), ".csv")
	b, err := strconv.Atoi(s)
	if err != nil || b <= 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("file name must be validation-<batch size>.csv with a positive whole batch size, not %q", base)
	}
	return b, nil
}

// Constants are the per-application settings the reference simulator adds
// to the measured tables.
type Constants struct {
	// Epochs is the number of epochs a job trains for.
	Epochs int
	// MaxLocal, when positive, overrides the largest per-GPU batch size.
	MaxLocal int
	// FixedBatch and MaxGPUs, when positive, pin the total batch size and
	// cap the GPUs under adaptive policies.
	FixedBatch, MaxGPUs int
}

// ReferenceConstants returns the reference simulator's constants for one
// of its six applications (bert, cifar10, deepspeech2, imagenet, ncf,
// yolov3), or false for any other name.
func ReferenceConstants(name string) (Constants, bool) {
	switch name {
	case "bert":
		return Constants{Epochs: 2}, true
	case "cifar10":
		return Constants{Epochs: 100}, true
	case "deepspeech2":
		return Constants{Epochs: 80}, true
	case "imagenet":
		return Constants{Epochs: 90}, true
	case "ncf":
		return Constants{Epochs: 10, FixedBatch: 32768, MaxGPUs: 1}, true
	case "yolov3":
		return Constants{Epochs: 50, MaxLocal: 8}, true
	}
	return Constants{}, false
}

// NewApp builds an App from parsed tables, with the limits and constants
// described on LoadApp. The epochs are capped to the rows of the shortest
// validation run.
func NewApp(name string, placements []PlacementRow, scalability []ScalabilityRow, validation map[int][]ValidationRow) (*App, error) {
	if len(placements) == 0 {
		return nil, errors.New("no placement rows")
	}
	if len(validation) == 0 {
		return nil, errors.New("no validation runs")
	}
	batches := sortedKeys(validation)
	minRows := math.MaxInt
	for _, b := range batches {
		if len(validation[b]) == 0 {
			return nil, fmt.Errorf("validation run at batch size %d has no rows", b)
		}
		minRows = min(minRows, len(validation[b]))
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, row := range placements {
		lo, hi = math.Min(lo, row.Local), math.Max(hi, row.Local)
	}
	lim := models.Limits{
		InitBatch: batches[0],
		MaxBatch:  batches[len(batches)-1],
		MinLocal:  int(math.Ceil(lo)),
		MaxLocal:  int(math.Floor(hi)),
	}
	app := &App{
		Name:             name,
		Epochs:           minRows,
		ValidatedBatches: batches,
	}
	if c, ok := ReferenceConstants(name); ok {
		app.Epochs = min(c.Epochs, minRows)
		app.FixedBatch, app.MaxGPUs = c.FixedBatch, c.MaxGPUs
		if c.MaxLocal > 0 {
			lim.MaxLocal = c.MaxLocal
		}
	}
	if lim.MaxLocal < lim.MinLocal || lim.MinLocal < 1 {
		return nil, fmt.Errorf("per-GPU batch range %d..%d is empty (local_bsz from %v to %v)", lim.MinLocal, lim.MaxLocal, lo, hi)
	}
	if lim.MaxBatch < lim.MinLocal {
		return nil, fmt.Errorf("largest validated batch size %d is below the smallest local_bsz %d", lim.MaxBatch, lim.MinLocal)
	}
	app.Limits = lim
	app.Truth = NewTableTruth(placements, scalability, validation)
	return app, nil
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
