package profiles

import (
	_ "embed"
	"fmt"

	"github.com/polluxsim/polluxsim/internal/adaptdl"
)

// defaultProfiles is the compact model of the six reference applications,
// written by `polluxsim profiles derive` (see default/NOTICE).
//
//go:embed default/profiles.json
var defaultProfiles []byte

// defaultTypes are the compact models of the six reference applications on
// the GPU types other than T4 (v100, a100, rtx6000, rtx2080ti), written by
// `polluxsim profiles derive --types` from the Sia artifact's per-type
// tables (see default/NOTICE). The only home of these figures.
//
//go:embed default/types.json
var defaultTypes []byte

// Names of the profile sets built into the binary; each is the Source of
// the Set it names.
const (
	// EmbeddedSource names the measured tables of the Pollux artifact,
	// embedded unchanged: the default ground truth (see Embedded).
	EmbeddedSource = "embedded"
	// CompactSource names the compact model derived from those tables
	// (see Compact).
	CompactSource = "compact"
	// DefaultSource is the Source of the Set that Default returns.
	DefaultSource = EmbeddedSource
)

// NamedSet describes one profile set built into the binary.
type NamedSet struct {
	// Name selects the set (--profiles NAME); it is also the Set's Source.
	Name string
	// Description says what the set is and where its figures come from.
	Description string
	// Load returns a new Set.
	Load func() *Set
}

// NamedSets lists the profile sets built into the binary, the default
// first.
func NamedSets() []NamedSet {
	return []NamedSet{
		{EmbeddedSource, "measured T4 tables (placements, scalability, validation) of " + adaptdl.Repository +
			", branch " + adaptdl.Branch + ", commit " + adaptdl.Commit + ", " + adaptdl.Folder +
			"/traces/, embedded unchanged; " + adaptdl.License + " (see NOTICE); " + typesDescription, Embedded},
		{CompactSource, "compact model fitted to those tables by `profiles derive` (profiles/default/profiles.json): " +
			"parameters derived from " + adaptdl.Repository + " " + adaptdl.Branch + ", " + adaptdl.License + " (see NOTICE); " +
			typesDescription, Compact},
		{LLMSource, "LLM-era transformer jobs (pre-training, fine-tuning, evaluation, debug of 1.1B to 70B models) " +
			"on h100, a100-80gb and a100-40gb nodes of 8 GPUs: step times from models/llm fitted to llm-foundry " +
			"(Apache-2.0) and Megatron-LM measurements, noise scale from Kaplan et al. 2020 (docs/llm.md)", LLM},
	}
}

// typesDescription says where the built-in sets' models on GPU types other
// than T4 come from.
const typesDescription = "on v100, a100, rtx6000 and rtx2080ti: compact throughput models fitted by " +
	"`profiles derive --types` to the per-type tables of the Sia artifact (siasosp23/artifacts, " +
	"sia-simulator/; profiles/default/types.json; parameters only, see NOTICE)"

// Named returns the built-in profile set called name ("embedded",
// "compact" or "llm"), or false.
func Named(name string) (*Set, bool) {
	for _, n := range NamedSets() {
		if n.Name == name {
			return n.Load(), true
		}
	}
	return nil, false
}

// Default returns the default ground truth: the measured tables embedded
// in the binary (see Embedded), so that a simulation reproduces the
// reference with nothing downloaded. Each call returns a new Set.
func Default() *Set { return Embedded() }

// Embedded returns the measured tables of the six reference applications
// (bert, cifar10, deepspeech2, imagenet, ncf, yolov3) from the Pollux
// artifact, embedded unchanged in the binary and read like a folder in the
// reference format (see Load). Its Source is "embedded". Each call returns
// a new Set.
//
// On the GPU types v100, a100, rtx6000 and rtx2080ti each application has
// the compact throughput model of DefaultTypesFile (see App.ForType): step
// times and per-GPU batch range of that type, the training curve of the
// tables.
func Embedded() *Set {
	set, err := LoadFS(adaptdl.FS(), EmbeddedSource)
	if err != nil {
		// The embedded archive is part of the build and checked by tests.
		panic(fmt.Sprintf("profiles: broken embedded tables: %v", err))
	}
	set.Digest = EmbeddedSource // the binary's version identifies the content
	return withTypes(set)
}

// DefaultTypesFile returns the embedded per-type compact models
// (default/types.json) that Embedded and Compact attach for the GPU types
// other than T4.
func DefaultTypesFile() (*TypeFile, error) {
	return ParseTypes("embedded default/types.json", defaultTypes)
}

// withTypes attaches the embedded per-type models to set and returns it.
func withTypes(set *Set) *Set {
	f, err := DefaultTypesFile()
	if err == nil {
		err = f.Attach(set)
	}
	if err != nil {
		// The embedded file is part of the build and checked by tests.
		panic(fmt.Sprintf("profiles: broken embedded per-type profiles: %v", err))
	}
	return set
}

// DefaultFile returns the embedded compact profile file, the one Compact
// reads. (Its name predates the measured tables becoming the default.)
func DefaultFile() (*CompactFile, error) {
	return ParseCompact("embedded default/profiles.json", defaultProfiles)
}

// Compact returns the compact model of each of the six reference
// applications derived from the Pollux artifact's measurements (a fitted
// throughput model with a correction surface, gradient-noise curves,
// limits): smaller and smoother than the tables, and the form in which
// user-derived profiles come. On the other GPU types it has the same
// per-type models as Embedded. Its Source is "compact". Each call returns a
// new Set.
func Compact() *Set {
	f, err := DefaultFile()
	if err != nil {
		// The embedded file is part of the build and checked by tests.
		panic(fmt.Sprintf("profiles: broken embedded compact profiles: %v", err))
	}
	set := f.Set(CompactSource)
	set.Digest = CompactSource // the binary's version identifies the content
	return withTypes(set)
}
