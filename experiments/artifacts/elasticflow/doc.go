// Package elasticflow sets polluxsim beside the simulator of ElasticFlow's
// artifact (pkusys/ElasticFlow, ASPLOS'23): it reads the artifact's job
// traces (its figure 8(a) trace and the ITP traces with deadlines of
// microsoft/elasticflow-traces) and converts them into polluxsim workloads
// with deadlines (Convert), keeping each job's deadline tightness: the
// artifact's deadline over its run time, times the job's isolated run time
// here. The runner and summariser of the artifact itself are the scripts
// beside this package (run.sh, summarize.py); README.md and
// docs/elasticflow-artifact.md say how the two are compared. Nothing of
// the artifact is part of polluxsim.
package elasticflow
