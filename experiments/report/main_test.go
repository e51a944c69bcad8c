package report

import (
	"testing"

	"github.com/polluxsim/polluxsim/experiments/internal/exptest"
)

func TestMain(m *testing.M) { exptest.Main(m) }
