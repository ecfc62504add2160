package sandbox

import (
	"context"
	"fmt"
)

// CreateForTest creates (without starting) a container configured as Run
// would configure it, for tests of the dead-man switch and the sweep.
func CreateForTest(ctx context.Context, d Docker, spec Spec) (string, error) {
	s, err := spec.withDefaults()
	if err != nil {
		return "", err
	}
	cfg, hc := containerConfigs(s, s.Now().Add(s.Timeout+s.Grace))
	c, err := d.ContainerCreate(ctx, cfg, hc, nil, nil, ContainerName(s.RunID))
	if err != nil {
		return "", fmt.Errorf("create container: %w", err)
	}
	return c.ID, nil
}
