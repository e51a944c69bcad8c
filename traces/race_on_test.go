//go:build race

package traces

// raceEnabled relaxes timing checks: the race detector slows code ~10×.
const raceEnabled = true
