package adaptdl

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/polluxsim/polluxsim/internal/atomicfile"
)

// Included reports whether a file of the reference folder (slash-separated
// path relative to it) belongs in the embedded copy: the per-application
// tables traces/<app>/*.csv and the workloads of workloads/ and
// workloads-realistic/. traces/philly.csv and anything else are left out.
func Included(rel string) bool {
	parts := strings.Split(rel, "/")
	if !strings.HasSuffix(rel, ".csv") || len(parts) == 0 {
		return false
	}
	switch parts[0] {
	case "traces":
		return len(parts) == 3
	case WorkloadsTuned, WorkloadsRealistic:
		return len(parts) == 2
	}
	return false
}

// ReferenceFiles lists the files of the reference folder dir that the
// embedded copy holds (see Included), as sorted slash-separated paths.
func ReferenceFiles(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		if rel = filepath.ToSlash(rel); Included(rel) {
			files = append(files, rel)
		}
		return nil
	})
	sort.Strings(files)
	return files, err
}

// archiveTime is the modification time written for every file, so that
// the archive depends only on names and contents.
var archiveTime = time.Date(2021, 8, 23, 0, 0, 0, 0, time.UTC)

// WriteArchive writes the zip file that this package embeds from the
// reference folder dir (see Included for what it holds) to out.
func WriteArchive(dir, out string) error {
	files, err := ReferenceFiles(dir)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no reference files (want traces/<app>/*.csv, %s/, %s/)", dir, WorkloadsTuned, WorkloadsRealistic)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			return err
		}
		h := &zip.FileHeader{Name: path.Clean(rel), Method: zip.Deflate, Modified: archiveTime}
		h.SetMode(0o444)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return atomicfile.WriteBytes(out, buf.Bytes())
}
