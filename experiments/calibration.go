package experiments

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Calibration is a named adjustment of the simulated cluster to a physical
// one: per-application factors on the true step times and per-application
// restart delays (seconds) replacing RunSpec.RestartDelay. The measured
// tables are left as they are; only the engine's view of them changes.
type Calibration struct {
	Name string
	Doc  string
	// StepScale multiplies each application's true step and sync times.
	StepScale map[string]float64
	// RestartDelay is each application's restart delay after a
	// re-allocation, a first start included.
	RestartDelay map[string]float64
}

// Figures of the Sia artifact (siasosp23/artifacts, sia-simulator/, SOSP'23),
// which calibrates its simulator to its testbed: per-model slowdowns of the
// simulated step times and measured per-model restart times. Only these
// numbers are used, with attribution; none of the artifact's data.
var (
	siaSlowdowns = map[string]float64{"bert": 1.2, "cifar10": 1.8, "deepspeech2": 1.2, "imagenet": 1.2, "ncf": 1.5, "yolov3": 1.2}
	siaRestarts  = map[string]float64{"bert": 120, "cifar10": 30, "deepspeech2": 25, "imagenet": 250, "ncf": 30, "yolov3": 45}
)

// calibrations are the named calibrations, by name.
var calibrations = map[string]Calibration{
	"sia": {Name: "sia", Doc: "the Sia artifact's testbed calibration: per-model step-time slowdowns (cifar10 1.8, ncf 1.5, others 1.2) and restart times (imagenet 250 s, bert 120 s, yolov3 45 s, deepspeech2 25 s, others 30 s)",
		StepScale: siaSlowdowns, RestartDelay: siaRestarts},
	"sia-slowdowns": {Name: "sia-slowdowns", Doc: "only the step-time slowdowns of \"sia\"", StepScale: siaSlowdowns},
	"sia-restarts":  {Name: "sia-restarts", Doc: "only the restart times of \"sia\"", RestartDelay: siaRestarts},
}

// Calibrations lists the named calibrations, sorted by name.
func Calibrations() []Calibration {
	out := make([]Calibration, 0, len(calibrations))
	for _, name := range slices.Sorted(maps.Keys(calibrations)) {
		out = append(out, calibrations[name])
	}
	return out
}

// LookupCalibration returns the calibration called name; "" is none.
func LookupCalibration(name string) (Calibration, error) {
	if name == "" {
		return Calibration{}, nil
	}
	c, ok := calibrations[name]
	if !ok {
		return c, fmt.Errorf("--calibration: unknown calibration %q (known: %s)", name, strings.Join(slices.Sorted(maps.Keys(calibrations)), ", "))
	}
	return c, nil
}
