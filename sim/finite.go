package sim

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// checkFinite refuses a result holding an infinite or NaN metric, which no
// output may hold: it names the first one, the job it belongs to and, for
// the fairness ρ, the two run times it divides. Inputs are bounded so that
// this does not happen (a profile's target is at least one iteration, step
// times are bounded), but a combination of extreme values still could; the
// run then ends here, before anything is written. A first start that is
// NaN (a job that never started) cannot reach here: every job finished.
func (r *Result) checkFinite() error {
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if name, v, ok := firstNonFinite(j); ok {
			why := ""
			if strings.HasPrefix(name, "fairness_rho") {
				why = fmt.Sprintf(" (JCT %v s over an exclusive run of %v s, an equal share's %v s)", j.JCT, j.ExclusiveJCT, j.EqualShareJCT)
			}
			return fmt.Errorf("job %s: %s is %v%s: an input (a profile's target or step times, a price) is too extreme for this metric to be finite", j.Name, name, v, why)
		}
	}
	if name, v, ok := firstNonFinite(&r.Summary); ok {
		return fmt.Errorf("summary: %s is %v: an input (a profile's target or step times, a price) is too extreme for this metric to be finite", name, v)
	}
	return nil
}

// firstNonFinite finds the first float64 field of the struct *p (or value
// of a map[string]float64 field) that is NaN or infinite, named by its
// JSON key.
func firstNonFinite(p any) (string, float64, bool) {
	v := reflect.ValueOf(p).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			name = f.Name
		}
		switch fv := v.Field(i); fv.Kind() {
		case reflect.Float64:
			if x := fv.Float(); math.IsNaN(x) || math.IsInf(x, 0) {
				return name, x, true
			}
		case reflect.Map:
			if fv.Type().Elem().Kind() != reflect.Float64 || fv.Type().Key().Kind() != reflect.String {
				continue
			}
			keys := fv.MapKeys()
			sort.Slice(keys, func(a, b int) bool { return keys[a].String() < keys[b].String() })
			for _, k := range keys {
				if x := fv.MapIndex(k).Float(); math.IsNaN(x) || math.IsInf(x, 0) {
					return name + "." + k.String(), x, true
				}
			}
		}
	}
	return "", 0, false
}
