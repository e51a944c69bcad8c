// Package bench measures the simulator itself: scale runs over cluster
// and workload sizes (RunScale) and the quality of Pollux's search against
// longer searches (SearchQuality).
package bench
