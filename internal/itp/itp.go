// Package itp embeds Microsoft's ITP job traces, the ones the ElasticFlow
// paper (ASPLOS'23) evaluates on: ten clusters, 69,351 deep-learning
// training jobs of 2021 (data/raw-traces.tar.gz of microsoft/elasticflow-traces,
// see Repository and Commit), unchanged. The archive is MIT-licensed,
// Copyright (c) Microsoft Corporation; its licence is in this folder's
// LICENSE and in the repository's LICENSE and NOTICE.
//
// Each cluster is one CSV file, cluster01.csv … cluster10.csv, with the
// header job_id,submission_time,duration,num_gpu (seconds from the start of
// collection, run time in seconds, GPUs). Package traces reads them as
// itp:cluster01 … itp:cluster10.
package itp

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Provenance of the embedded archive.
const (
	Repository = "microsoft/elasticflow-traces"
	Commit     = "277ed24d0e908c31a1c98145819e2e3853d8ac00"
	File       = "data/raw-traces.tar.gz"
	SHA256     = "67398e1a89245c50ae0881bf997e6cda0c95f9f47980af5bc56d67998965669f"
	License    = "MIT"
	Copyright  = "Copyright (c) Microsoft Corporation"
)

// Attribution is a one-line statement of where the embedded data comes
// from, for listings and descriptions.
const Attribution = "Microsoft ITP traces of " + Repository + " (commit 277ed24d0e90, " + File + "), " + License + ", " + Copyright

// Clusters is the number of clusters in the archive.
const Clusters = 10

//go:embed raw-traces.tar.gz
var archive []byte

// Archive returns the embedded archive's bytes (a copy).
func Archive() []byte { return bytes.Clone(archive) }

// ClusterNames lists the clusters, cluster01 … cluster10.
func ClusterNames() []string {
	names := make([]string, Clusters)
	for i := range names {
		names[i] = fmt.Sprintf("cluster%02d", i+1)
	}
	return names
}

// Open returns the CSV file of one cluster ("cluster02", or "02" or "2"),
// decompressed as it is read.
func Open(cluster string) (io.Reader, error) {
	name, err := ClusterName(cluster)
	if err != nil {
		return nil, err
	}
	zr, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("itp: broken embedded archive (a build problem): %w", err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("itp: %s.csv is not in the embedded archive (a build problem)", name)
		}
		if err != nil {
			return nil, fmt.Errorf("itp: broken embedded archive (a build problem): %w", err)
		}
		if strings.TrimPrefix(h.Name, "./") == name+".csv" {
			return tr, nil
		}
	}
}

// ClusterName normalises a cluster argument ("cluster02", "02", "2") to
// cluster01 … cluster10; anything else is an error listing the clusters.
func ClusterName(c string) (string, error) {
	n := strings.TrimPrefix(c, "cluster")
	for _, name := range ClusterNames() {
		if n != "" && (name == "cluster"+n || name == "cluster0"+n) {
			return name, nil
		}
	}
	return "", fmt.Errorf("no ITP cluster %q (the embedded ones are cluster01 … cluster%02d)", c, Clusters)
}
