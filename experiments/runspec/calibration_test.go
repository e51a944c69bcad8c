package runspec

import (
	"strings"
	"testing"
)

func TestCalibrationSettings(t *testing.T) {
	s := DefaultSpec("pollux")
	if c := s.SimConfig(); c.StepScale != nil || c.RestartDelayByApp != nil {
		t.Errorf("default spec is calibrated: %v %v", c.StepScale, c.RestartDelayByApp)
	}
	s.Calibration = "sia"
	if err := s.Validate(known); err != nil {
		t.Fatal(err)
	}
	c := s.SimConfig()
	if c.StepScale["cifar10"] != 1.8 || c.StepScale["ncf"] != 1.5 || c.StepScale["bert"] != 1.2 || c.RestartDelayByApp["imagenet"] != 250 || c.RestartDelay != 30 {
		t.Errorf("sia: step scale %v, restarts %v, default restart %v", c.StepScale, c.RestartDelayByApp, c.RestartDelay)
	}
	s.Calibration = "sia-restarts"
	if c := s.SimConfig(); c.StepScale != nil || c.RestartDelayByApp["bert"] != 120 {
		t.Errorf("sia-restarts: %v %v", c.StepScale, c.RestartDelayByApp)
	}
	// The artifact's engine: the same slowdowns, its own restart delays.
	s.Calibration = "sia-engine"
	if c := s.SimConfig(); c.StepScale["cifar10"] != 1.8 || c.RestartDelayByApp["cifar10"] != 50 || c.RestartDelayByApp["yolov3"] != 80 || c.RestartDelayByApp["ncf"] != 15 || c.RestartDelayByApp["imagenet"] != 250 {
		t.Errorf("sia-engine: %v %v", c.StepScale, c.RestartDelayByApp)
	}
	// The policy learns the delays the engine charges.
	if e := s.Env(0); e.RestartDelay != 30 || e.RestartDelayByApp["bert"] != 120 || e.RestartDelayByApp["cifar10"] != 50 {
		t.Errorf("sia-engine: the policy's restart delays %v, %v", e.RestartDelay, e.RestartDelayByApp)
	}
	if e := DefaultSpec("sia").Env(0); e.RestartDelayByApp != nil {
		t.Errorf("uncalibrated: the policy's per-application delays %v, want none", e.RestartDelayByApp)
	}
	s.Calibration = "testbed"
	if err := s.Validate(known); err == nil || !strings.Contains(err.Error(), "--calibration") || !strings.Contains(err.Error(), "sia-slowdowns") {
		t.Errorf("unknown calibration: %v", err)
	}
	// Every calibration names only applications of the default profiles.
	for _, cal := range Calibrations() {
		for app := range cal.StepScale {
			if _, ok := cal.RestartDelay[app]; !ok && cal.RestartDelay != nil {
				t.Errorf("%s: %s has a slowdown but no restart time", cal.Name, app)
			}
		}
	}
}
