package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/polluxsim/polluxsim/experiments"
	"github.com/polluxsim/polluxsim/experiments/outputs"
	"github.com/polluxsim/polluxsim/experiments/results"
	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// writeSweepRounds concatenates the rounds tables the runs kept
// (cells/<run>.rounds.parquet, of the same run id) into dir/rounds.parquet.
// Without any, it writes nothing and removes an earlier rounds.parquet.
func writeSweepRounds(dir string, exp *experiments.Experiment, runs []*results.RunResult) error {
	var inputs []string
	for _, r := range runs {
		path := RunRoundsPath(dir, r.Run)
		id, err := parquetMetaValue(path, "polluxsim.run_id")
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if id == results.SweepRunKey(r).ID { // else a stale file of an earlier run
			inputs = append(inputs, path)
		}
	}
	out := filepath.Join(dir, RoundsFile)
	if len(inputs) == 0 {
		if err := os.Remove(out); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	kv, order := sweepMeta(exp)
	kv["polluxsim.schema_version"] = strconv.Itoa(outputs.SchemaVersion)
	order = append([]string{"polluxsim.schema_version"}, order...)
	return concatParquet(out, inputs, kv, order)
}

// parquetMetaValue reads one key-value metadata entry of a Parquet file.
func parquetMetaValue(path, key string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	rdr, err := file.NewParquetReader(f)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	defer rdr.Close()
	if v := rdr.MetaData().KeyValueMetadata().FindValue(key); v != nil {
		return *v, nil
	}
	return "", nil
}

// concatParquet writes the rows of inputs (tables of one schema) to path,
// atomically, streaming one record batch at a time.
func concatParquet(path string, inputs []string, meta map[string]string, metaOrder []string) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		var fw *pqarrow.FileWriter
		var first *arrow.Schema
		for _, in := range inputs {
			if err := func() error {
				f, err := os.Open(in)
				if err != nil {
					return err
				}
				defer f.Close()
				rdr, err := file.NewParquetReader(f)
				if err != nil {
					return fmt.Errorf("%s: %w", in, err)
				}
				defer rdr.Close()
				fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: outputs.BatchRows}, memory.DefaultAllocator)
				if err != nil {
					return fmt.Errorf("%s: %w", in, err)
				}
				schema, err := fr.Schema()
				if err != nil {
					return fmt.Errorf("%s: %w", in, err)
				}
				if fw == nil {
					first = schema
					opts := []parquet.WriterProperty{
						parquet.WithCompression(compress.Codecs.Snappy),
						parquet.WithDictionaryDefault(false),
						parquet.WithCreatedBy("polluxsim"),
					}
					for _, c := range outputs.Schema(RoundsFile).Columns {
						if c.Type == outputs.TypeString {
							opts = append(opts, parquet.WithDictionaryFor(c.Name, true))
						}
					}
					fw, err = pqarrow.NewFileWriter(schema, struct{ io.Writer }{w}, parquet.NewWriterProperties(opts...), pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
					if err != nil {
						return fmt.Errorf("%s: %w", path, err)
					}
				} else if !first.Equal(schema) {
					return fmt.Errorf("%s: another schema than %s", in, inputs[0])
				}
				rr, err := fr.GetRecordReader(context.Background(), nil, nil)
				if err != nil {
					return fmt.Errorf("%s: %w", in, err)
				}
				defer rr.Release()
				for rr.Next() {
					if err := fw.WriteBuffered(rr.RecordBatch()); err != nil {
						return fmt.Errorf("%s: %w", path, err)
					}
				}
				return rr.Err()
			}(); err != nil {
				if fw != nil {
					fw.Close()
				}
				return err
			}
		}
		for _, k := range metaOrder {
			if err := fw.AppendKeyValueMetadata(k, meta[k]); err != nil {
				fw.Close()
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return fw.Close()
	})
}
