package outputs

import (
	"fmt"

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
	batch *atomicfile.Batch
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

// newRoundsStream starts path (a run folder's rounds.parquet, see
// RunFolder.StreamRounds) in the batch b for a run of policy with spec and
// meta.
func newRoundsStream(b *atomicfile.Batch, path, policy string, spec runspec.RunSpec, meta RunMeta, opt OutputOptions) (*RoundsStream, error) {
	f, err := b.Create(path)
	if err != nil {
		return nil, err
	}
	s := &RoundsStream{file: f, groupRows: BatchRows}
	s.kv, s.order = tableMeta(parquetMeta(spec, meta))
	key := PlainRunKey(spec, meta)
	s.tw, err = newTableWriter(path, f, RoundsTable.arrowFields(), RoundsTable.columns(roundRows(&key, &s.buf)))
	if err != nil {
		f.Abort()
		return nil, err
	}
	s.batch = b
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

// finish writes the remaining rows and the footer, closes the file and
// stages it in the run folder's batch.
func (s *RoundsStream) finish() error {
	if len(s.buf) > 0 || s.rows == 0 {
		if err := s.flush(); err != nil {
			s.Abort()
			return err
		}
	}
	if err := s.tw.close(s.kv, s.order); err != nil {
		s.Abort()
		return err
	}
	if err := s.file.Sync(); err != nil {
		s.Abort()
		return fmt.Errorf("cannot write %s: %w", s.file.Path(), err)
	}
	if err := s.file.Close(); err != nil {
		s.Abort()
		return fmt.Errorf("cannot write %s: %w", s.file.Path(), err)
	}
	return s.batch.Stage(s.file)
}

// Abort removes the temporary file; nothing is written.
func (s *RoundsStream) Abort() {
	s.file.Abort()
}
