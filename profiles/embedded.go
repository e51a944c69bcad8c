package profiles

import (
	_ "embed"
	"fmt"
)

// defaultProfiles is the compact model of the six reference applications,
// written by `polluxsim profiles derive` (see default/NOTICE).
//
//go:embed default/profiles.json
var defaultProfiles []byte

// DefaultSource is the Source of the Set that Default returns.
const DefaultSource = "embedded"

// DefaultFile returns the embedded compact profile file.
func DefaultFile() (*CompactFile, error) {
	return ParseCompact("embedded default/profiles.json", defaultProfiles)
}

// Default returns the embedded default profiles: a compact model of each of
// the six reference applications (bert, cifar10, deepspeech2, imagenet,
// ncf, yolov3) derived from the Pollux artifact's measurements, so that a
// simulation runs with nothing downloaded. Each call returns a new Set.
func Default() *Set {
	f, err := DefaultFile()
	if err != nil {
		// The embedded file is part of the build and checked by tests.
		panic(fmt.Sprintf("profiles: broken embedded default: %v", err))
	}
	return f.Set(DefaultSource)
}
