package profiles

import "github.com/polluxsim/polluxsim/models"

// Observations returns every measured row (placements and scalability) as
// a throughput observation, as DeriveApp fits θ_sys to them.
func (t *TableTruth) Observations() []models.Observation { return throughputObservations(t) }
