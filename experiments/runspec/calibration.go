package runspec

import (
	"fmt"
	"maps"
	"slices"

	reg "github.com/polluxsim/polluxsim/internal/registry"
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
// simulated step times (simulator_config.py SLOWDOWNS, applied by job.py on
// every GPU type), the restart delays its engine charges (applications.py
// rescale_time) and the restart penalties its Sia policy assumes (sia.py
// get_restart_penalty; Sia's own option, see policies/sia). Only these
// numbers are used, with attribution; none of the artifact's data.
var (
	siaSlowdowns      = map[string]float64{"bert": 1.2, "cifar10": 1.8, "deepspeech2": 1.2, "imagenet": 1.2, "ncf": 1.5, "yolov3": 1.2}
	siaPolicyRestarts = map[string]float64{"bert": 120, "cifar10": 30, "deepspeech2": 25, "imagenet": 250, "ncf": 30, "yolov3": 45}
	siaEngineRestarts = map[string]float64{"bert": 120, "cifar10": 50, "deepspeech2": 25, "imagenet": 250, "ncf": 15, "yolov3": 80}
)

// calibrations are the named calibrations, by name.
var calibrations = map[string]Calibration{
	"sia": {Name: "sia", Doc: "the Sia artifact's step-time slowdowns (cifar10 1.8, ncf 1.5, others 1.2) with the restart penalties its Sia policy assumes charged by the engine (sia.py: imagenet 250 s, bert 120 s, yolov3 45 s, deepspeech2 25 s, others 30 s); the artifact's own engine is sia-engine",
		StepScale: siaSlowdowns, RestartDelay: siaPolicyRestarts},
	"sia-engine": {Name: "sia-engine", Doc: "the Sia artifact's engine: its step-time slowdowns on every GPU type (cifar10 1.8, ncf 1.5, others 1.2) and the restart delays it charges (applications.py rescale_time: imagenet 250 s, bert 120 s, yolov3 80 s, cifar10 50 s, deepspeech2 25 s, ncf 15 s)",
		StepScale: siaSlowdowns, RestartDelay: siaEngineRestarts},
	"sia-slowdowns": {Name: "sia-slowdowns", Doc: "only the step-time slowdowns of \"sia\"", StepScale: siaSlowdowns},
	"sia-restarts":  {Name: "sia-restarts", Doc: "only the restart times of \"sia\"", RestartDelay: siaPolicyRestarts},
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
		return c, fmt.Errorf("--calibration: unknown calibration %q (%s)", name, reg.Known(name, slices.Sorted(maps.Keys(calibrations))))
	}
	return c, nil
}
