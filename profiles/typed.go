package profiles

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/models"
)

// This file holds compact per-GPU-type profiles: for an application whose
// own profile is one GPU type (e.g. the measured T4 tables), a compact
// throughput model on each further type. The training curve (gradient
// statistics, progress, iterations) does not depend on the GPU and is the
// application's own; only step times and the per-GPU batch range differ.

// TypesFormat identifies the per-type compact profile file format.
const TypesFormat = "polluxsim-compact-types/1"

// DeriveTypesMethod summarises how DeriveTypes computes a per-type model;
// it is recorded in the file's provenance.
const DeriveTypesMethod = "per application and GPU type: θ_sys fitted with models.Fit on every row of " +
	"placements-<type>.csv and scalability-<type>.csv with a per-GPU batch size the application may use on the type " +
	"(step time and compute time step−sync), times a " +
	"piecewise-bilinear correction surface over (nodes, GPUs per node) fitted by ridge least squares to the " +
	"log residuals (as for the compact profiles); the per-GPU batch range is that of the type's tables; the " +
	"training curve is shared by all types and not part of the file; numbers rounded to 6 significant digits"

// TypeFile holds compact throughput models of applications on further GPU
// types, with the provenance of the tables they were derived from. It is
// what `polluxsim profiles derive --types` writes; Attach adds its models
// to a Set.
type TypeFile struct {
	Format     string      `json:"format"`
	Provenance Provenance  `json:"provenance"`
	Apps       []*AppTypes `json:"apps"`
}

// AppTypes are the per-type models of one application.
type AppTypes struct {
	Name  string         `json:"name"`
	Types []*CompactType `json:"types"`
}

// CompactType is the compact model of an application's step times on one
// GPU type: θ_sys with a correction surface, as in CompactModel, and the
// per-GPU batch range measured on that type.
type CompactType struct {
	// Type is the canonical GPU type name (see CanonicalType).
	Type       string            `json:"type"`
	MinLocal   int               `json:"min_local"`
	MaxLocal   int               `json:"max_local"`
	Throughput CompactThroughput `json:"throughput"`
	Correction CompactCorrection `json:"correction"`
}

// typedTruth answers step times from a compact per-type model and
// everything else from the application's own truth.
type typedTruth struct {
	Truth
	params models.Params
	corr   CompactCorrection
}

var _ Truth = (*typedTruth)(nil)

// Step implements Truth with the per-type compact model (see compactStep).
func (t *typedTruth) Step(placement []int, local float64) (step, sync float64) {
	return compactStep(t.params, &t.corr, placement, local)
}

// DeriveType computes the compact model of an application read from one GPU
// type's measured tables (an entry of App.ByType).
func DeriveType(app *App) (*CompactType, error) {
	tt, ok := app.Truth.(*TableTruth)
	if !ok {
		return nil, errors.New("needs an application read from measured tables")
	}
	if app.Type == "" {
		return nil, errors.New("needs the tables of a named GPU type")
	}
	ct := &CompactType{Type: app.Type, MinLocal: app.Limits.MinLocal, MaxLocal: app.Limits.MaxLocal}
	// Only the rows a simulation can use: the per-GPU batch range may be
	// capped below the measured one (yolov3: 8).
	var obs []models.Observation
	for _, o := range throughputObservations(tt) {
		if o.Local <= float64(ct.MaxLocal) {
			obs = append(obs, o)
		}
	}
	var err error
	if ct.Throughput, ct.Correction, err = fitThroughput(obs); err != nil {
		return nil, err
	}
	if err := ct.validate(); err != nil {
		return nil, fmt.Errorf("derived model is invalid: %w", err)
	}
	return ct, nil
}

// DeriveTypes computes the compact model of every application of set on
// each of the given GPU types it has tables for (set read from data in the
// Sia artifact's layout, see Load). Types are canonicalised and derived in
// sorted order; an application without tables for a type gets no model for
// it (it cannot run there). Method is filled in when empty.
func DeriveTypes(set *Set, types []string, prov Provenance) (*TypeFile, error) {
	if prov.Method == "" {
		prov.Method = DeriveTypesMethod
	}
	var canon []string
	for _, t := range types {
		c, err := CanonicalType(t)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(canon, c) {
			canon = append(canon, c)
		}
	}
	slices.Sort(canon)
	if len(canon) == 0 {
		return nil, errors.New("no GPU types to derive")
	}
	f := &TypeFile{Format: TypesFormat, Provenance: prov}
	for _, name := range set.Names() {
		app := set.Apps[name]
		at := &AppTypes{Name: name}
		for _, t := range canon {
			a := app.ByType[t]
			if a == nil {
				continue
			}
			ct, err := DeriveType(a)
			if err != nil {
				return nil, fmt.Errorf("derive %s on %s: %w", name, t, err)
			}
			at.Types = append(at.Types, ct)
		}
		if len(at.Types) > 0 {
			f.Apps = append(f.Apps, at)
		}
	}
	if len(f.Apps) == 0 {
		return nil, fmt.Errorf("no application of profiles %s has tables for GPU types %v", set.Source, canon)
	}
	return f, nil
}

// validate checks that the model answers with finite, sensible numbers.
func (ct *CompactType) validate() error {
	if c, err := CanonicalType(ct.Type); err != nil || c != ct.Type {
		return fmt.Errorf("type %q is not a canonical GPU type name (%v)", ct.Type, TypeNames())
	}
	if ct.MinLocal < 1 || ct.MaxLocal < ct.MinLocal {
		return fmt.Errorf("type %s: per-GPU batch range %d..%d is empty", ct.Type, ct.MinLocal, ct.MaxLocal)
	}
	if err := validateThroughput(ct.Throughput, ct.Correction, ct.MinLocal); err != nil {
		return fmt.Errorf("type %s: %w", ct.Type, err)
	}
	return nil
}

// ParseTypes decodes and checks a per-type compact profile file; name is
// used in error messages.
func ParseTypes(name string, data []byte) (*TypeFile, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f TypeFile
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", name, jsonError(data, err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: unexpected data after the JSON object", name)
	}
	if f.Format != TypesFormat {
		return nil, fmt.Errorf("%s: format %q, want %q", name, f.Format, TypesFormat)
	}
	if len(f.Apps) == 0 {
		return nil, fmt.Errorf("%s: no applications", name)
	}
	seen := map[string]bool{}
	for i, a := range f.Apps {
		if a == nil || a.Name == "" {
			return nil, fmt.Errorf("%s: application %d has no name", name, i)
		}
		if seen[a.Name] {
			return nil, fmt.Errorf("%s: application %q appears twice", name, a.Name)
		}
		seen[a.Name] = true
		if len(a.Types) == 0 {
			return nil, fmt.Errorf("%s: application %q has no types", name, a.Name)
		}
		types := map[string]bool{}
		for _, ct := range a.Types {
			if ct == nil {
				return nil, fmt.Errorf("%s: application %q: a type is null", name, a.Name)
			}
			if err := ct.validate(); err != nil {
				return nil, fmt.Errorf("%s: application %q: %w", name, a.Name, err)
			}
			if types[ct.Type] {
				return nil, fmt.Errorf("%s: application %q: type %s appears twice", name, a.Name, ct.Type)
			}
			types[ct.Type] = true
		}
	}
	return &f, nil
}

// Attach adds the file's per-type models to the applications of set (see
// App.ByType): each becomes an App on its type whose step times are the
// compact model's and whose limits, training length and training curve are
// the application's own, with the type's per-GPU batch range. It fails,
// leaving set unchanged, when an application is not in set, already has a
// profile on a type, or has a validated batch size range the type's
// per-GPU batch range does not fit.
func (f *TypeFile) Attach(set *Set) error {
	for _, at := range f.Apps {
		base := set.Apps[at.Name]
		if base == nil {
			return fmt.Errorf("per-type profiles: application %q is not in profiles %s", at.Name, set.Source)
		}
		for _, ct := range at.Types {
			if base.ForType(ct.Type) != nil {
				return fmt.Errorf("per-type profiles: %s already has a profile on %s in profiles %s", at.Name, ct.Type, set.Source)
			}
			if base.Limits.MaxBatch < ct.MinLocal {
				return fmt.Errorf("per-type profiles: %s on %s: largest validated batch size %d is below the smallest per-GPU batch %d",
					at.Name, ct.Type, base.Limits.MaxBatch, ct.MinLocal)
			}
		}
	}
	for _, at := range f.Apps {
		base := set.Apps[at.Name]
		for _, ct := range at.Types {
			if base.ByType == nil {
				base.ByType = map[string]*App{}
			}
			base.ByType[ct.Type] = ct.App(base)
		}
	}
	return nil
}

// App returns base's application on the model's type: the model's step times
// and per-GPU batch range, and base's limits, length and training curve.
func (ct *CompactType) App(base *App) *App {
	lim := base.Limits
	lim.MinLocal, lim.MaxLocal = ct.MinLocal, ct.MaxLocal
	return &App{
		Name:             base.Name,
		Limits:           lim,
		Epochs:           base.Epochs,
		FixedBatch:       base.FixedBatch,
		MaxGPUs:          base.MaxGPUs,
		ValidatedBatches: append([]int(nil), base.ValidatedBatches...),
		Truth:            &typedTruth{Truth: base.Truth, params: ct.Throughput.Params(), corr: ct.Correction},
		Type:             ct.Type,
	}
}

// Encode writes the file as indented JSON, with lists of numbers on one
// line.
func (f *TypeFile) Encode(w io.Writer) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(inlineNumberLists(data), '\n'))
	return err
}

// WriteFile writes the file atomically to path.
func (f *TypeFile) WriteFile(path string) error {
	return atomicfile.Write(path, f.Encode)
}
