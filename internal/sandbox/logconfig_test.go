package sandbox

import (
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// No container a run makes keeps a log on the host: what its first
// process writes is not capped by anything else.
func TestContainersKeepNoLogOnTheHost(t *testing.T) {
	assert.Check(t, is.Equal(NoContainerLog.Type, "none"))
	assert.Check(t, is.Len(NoContainerLog.Config, 0))
	for _, profile := range Profiles {
		spec := fakeSpec()
		spec.Profile = profile
		s, err := spec.withDefaults()
		assert.NilError(t, err)
		_, hc := containerConfigs(s, s.Now().Add(s.Timeout+s.Grace))
		assert.Check(t, is.DeepEqual(hc.LogConfig, NoContainerLog), profile)
	}
}
