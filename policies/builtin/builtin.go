// Package builtin lists every policy that ships with polluxsim, as
// values: Registrations for a registry of one's own, Registry for a
// registry of them all. Nothing registers at init; a binary that leaves
// this package out has none of them.
package builtin

import (
	"github.com/polluxsim/polluxsim/policies"
	"github.com/polluxsim/polluxsim/policies/chronus"
	"github.com/polluxsim/polluxsim/policies/edf"
	"github.com/polluxsim/polluxsim/policies/elasticflow"
	"github.com/polluxsim/polluxsim/policies/fifo"
	"github.com/polluxsim/polluxsim/policies/gandiva"
	"github.com/polluxsim/polluxsim/policies/gavel"
	"github.com/polluxsim/polluxsim/policies/optimus"
	"github.com/polluxsim/polluxsim/policies/pollux"
	"github.com/polluxsim/polluxsim/policies/sia"
	"github.com/polluxsim/polluxsim/policies/srtf"
	"github.com/polluxsim/polluxsim/policies/themis"
	"github.com/polluxsim/polluxsim/policies/tiresias"
)

// Registrations are the built-in policies' registrations.
func Registrations() []policies.Registration {
	regs := []policies.Registration{chronus.Registration(), edf.Registration(), edf.ElasticRegistration(), elasticflow.Registration(), fifo.Registration(), gandiva.Registration(), optimus.Registration(), pollux.Registration(),
		sia.Registration(), sia.RigidRegistration(), srtf.Registration(), themis.Registration(), tiresias.Registration()}
	return append(regs, gavel.Registrations()...)
}

// Registry returns a new registry of the built-in policies.
func Registry() *policies.Registry { return policies.MustRegistry(Registrations()...) }
