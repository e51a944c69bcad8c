package outputs

import (
	"github.com/polluxsim/polluxsim/experiments/runspec"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
	"github.com/polluxsim/polluxsim/sim"
)

// RoundsStream writes DIR/rounds.parquet while a run goes: it is the run's
// sim.RoundSink, buffers at most one row group of records and writes each
// full row group to a hidden temporary file, so that memory does not grow
// with the rounds. WriteRun commits it (renames it to rounds.parquet) with
// the other outputs; Abort removes it. The rows are those WriteRounds
// writes from Result.Rounds.
type RoundsStream struct {
	file  *atomicfile.Pending
	tw    *tableWriter
	buf   []sim.RoundRecord
	kv    map[string]string
	order []string
	rows  int
	// groupRows is the row group size (default batchRows).
	groupRows int
}

var _ sim.RoundSink = (*RoundsStream)(nil)

// NewRoundsStream starts DIR/rounds.parquet for a run of policy (its
// name as the policy reports it) with spec and meta.
func NewRoundsStream(path, policy string, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) (*RoundsStream, error) {
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, err
	}
	s := &RoundsStream{file: f, groupRows: BatchRows}
	s.kv, s.order = tableMeta(parquetMeta(spec, meta))
	key := PlainRunKey(spec, meta)
	cols := roundTableCols(&key, &s.buf)
	fields, err := tableFields(path, Table("rounds.parquet"), cols)
	if err == nil {
		s.tw, err = newTableWriter(path, f, fields, cols)
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return s, nil
}

// WriteRounds implements sim.RoundSink.
func (s *RoundsStream) WriteRounds(recs []sim.RoundRecord) error {
	s.buf = append(s.buf, recs...)
	if len(s.buf) >= s.groupRows {
		return s.flush()
	}
	return nil
}

// Rows is the number of records received so far.
func (s *RoundsStream) Rows() int { return s.rows + len(s.buf) }

func (s *RoundsStream) flush() error {
	n := len(s.buf)
	if err := s.tw.write(n, true); err != nil {
		return err
	}
	s.rows += n
	s.buf = s.buf[:0]
	return nil
}

// Commit writes the remaining rows and the footer and renames the file to
// its destination.
func (s *RoundsStream) Commit() error {
	if len(s.buf) > 0 || s.rows == 0 {
		if err := s.flush(); err != nil {
			s.Abort()
			return err
		}
	}
	if err := s.tw.close(s.kv, s.order); err != nil {
		s.file.Abort()
		return err
	}
	return s.file.Commit()
}

// TempPath is the hidden temporary file the rows go to until Commit.
func (s *RoundsStream) TempPath() string { return s.file.Name() }

// Abort removes the temporary file; nothing is written.
func (s *RoundsStream) Abort() {
	s.file.Abort()
}
