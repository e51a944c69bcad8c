package outputs

import (
	"fmt"
	"path/filepath"
	"strings"
)

// RunTable is an output table of one's own: rows derived from a finished
// run's data (RunData: its jobs, rounds and the engine's summary),
// declared once with its columns as the built-in tables are (Field). A
// run writes it in its folder beside jobs.parquet, a sweep writes it over
// all its runs, every row led by the run columns (run_id, cell, policy,
// ...) as in jobs.parquet, and export converts it. Make one with
// NewRunTable; a binary adds it with extensions.WithTable (app.WithTable).
type RunTable interface {
	// Schema documents the table: its file, run columns included.
	Schema() TableDoc
	// Write writes the table's rows of runs to path (atomically, as
	// WriteTable does) with the key-value metadata meta in order.
	Write(path string, runs []KeyedRun, meta map[string]string, order []string) error
	// stage writes it as part of a run folder's batch.
	stage(f *RunFolder, run KeyedRun, meta map[string]string, order []string) error
}

// KeyedRun is a run's data with the identity its rows carry.
type KeyedRun struct {
	Key  *RunKey
	Data *RunData
}

// runTable is a RunTable whose rows are of type R.
type runTable[R any] struct {
	t    *Table[keyedRow[R]]
	rows func(d *RunData) []R
}

var _ RunTable = (*runTable[int])(nil)

// keyedRow is a row of a table of one's own with its run.
type keyedRow[R any] struct {
	key *RunKey
	row R
}

// NewRunTable declares a table of one's own: the file it is written to
// (a plain name ending in .parquet, not one polluxsim writes; CheckFile),
// what a row is (doc), the rows of a run (rows) and their columns
// (fields, after the run columns every table starts with).
func NewRunTable[R any](file, doc string, rows func(d *RunData) []R, fields ...Field[R]) RunTable {
	lifted := make([]Field[keyedRow[R]], len(fields))
	for i, f := range fields {
		lifted[i] = Lift(f, func(r keyedRow[R]) R { return r.row })
	}
	return &runTable[R]{
		t:    &Table[keyedRow[R]]{File: file, Where: "run, sweep", Doc: doc, Fields: withRun(func(r keyedRow[R]) *RunKey { return r.key }, lifted...)},
		rows: rows,
	}
}

func (t *runTable[R]) Schema() TableDoc { return t.t.Schema() }

func (t *runTable[R]) collect(runs []KeyedRun) []keyedRow[R] {
	var all []keyedRow[R]
	for _, r := range runs {
		for _, x := range t.rows(r.Data) {
			all = append(all, keyedRow[R]{r.Key, x})
		}
	}
	return all
}

func (t *runTable[R]) Write(path string, runs []KeyedRun, meta map[string]string, order []string) error {
	all := t.collect(runs)
	return WriteTable(path, t.t, func(i int) keyedRow[R] { return all[i] }, len(all), meta, order)
}

func (t *runTable[R]) stage(f *RunFolder, run KeyedRun, meta map[string]string, order []string) error {
	all := t.collect([]KeyedRun{run})
	return stageTable(&f.batch, filepath.Join(f.dir, t.t.File), t.t, func(i int) keyedRow[R] { return all[i] }, len(all), meta, order)
}

// CheckFile checks the file name of a table of one's own: a plain name
// ending in .parquet, not a file polluxsim writes in a run's or a sweep's
// folder.
func CheckFile(name string) error {
	if name != filepath.Base(name) || !strings.HasSuffix(name, ".parquet") || len(name) == len(".parquet") || strings.HasPrefix(name, ".") {
		return fmt.Errorf("table %q: want a plain file name ending in .parquet", name)
	}
	for _, t := range Tables() {
		if t.File == name {
			return fmt.Errorf("table %q: polluxsim writes a table of that name", name)
		}
	}
	return nil
}
