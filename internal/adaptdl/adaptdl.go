// Package adaptdl embeds the measured data of the Pollux (OSDI'21)
// artifact's simulator, unchanged: the per-application tables
// traces/<app>/placements.csv, scalability.csv and validation-<B>.csv
// measured on 4×T4 nodes, and the eight 160-job reference workloads in
// workloads/ (TunedJobs configurations) and workloads-realistic/ (user
// configurations).
//
// The files come from petuum/adaptdl, branch osdi21-artifact, folder
// simulator/ (see Repository, Branch, Commit), distributed under the
// Apache License 2.0; the repository's LICENSE and NOTICE files carry the
// licence text and the attribution. They are stored as one compressed zip
// archive (simulator.zip, written by mkarchive) and read in place.
package adaptdl

import (
	"archive/zip"
	"bytes"
	_ "embed"
	"fmt"
	"io/fs"
)

// Provenance of the embedded files.
const (
	Repository = "petuum/adaptdl"
	Branch     = "osdi21-artifact"
	Commit     = "c793c7089bd307462686339d29707925c461f9a9"
	Folder     = "simulator"
	License    = "Apache-2.0"
)

// Attribution is a one-line statement of where the embedded data comes
// from, for listings and descriptions.
const Attribution = "measured T4 tables of " + Repository + " (branch " + Branch + ", commit c793c7089bd3, " + Folder + "/), " + License

// Folders of the embedded workload sets, named as in the artifact.
const (
	WorkloadsTuned     = "workloads"
	WorkloadsRealistic = "workloads-realistic"
)

// Workloads is the number of workloads in each embedded set
// (workload-1.csv … workload-8.csv).
const Workloads = 8

//go:embed simulator.zip
var archive []byte

// FS returns the embedded files as a read-only file system rooted at the
// artifact's simulator/ folder: traces/<app>/*.csv, workloads/*.csv and
// workloads-realistic/*.csv. Each call returns a new, independent reader.
func FS() fs.FS {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		// The archive is part of the build and checked by this package's tests.
		panic(fmt.Sprintf("adaptdl: broken embedded archive: %v", err))
	}
	return zr
}

// ArchiveSize is the size in bytes of the compressed archive in the binary.
func ArchiveSize() int { return len(archive) }
