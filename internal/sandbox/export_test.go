package sandbox

import (
	"context"
	"fmt"
	"time"
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

// ShortRemovalForTest makes one removal call give up after d, so that a
// test sees the wait for a container the daemon is still deleting; the
// returned func restores the defaults.
func ShortRemovalForTest(d time.Duration) (restore func()) {
	oldTimeout, oldPoll := removeTimeout, removePoll
	removeTimeout, removePoll = d, 100*time.Millisecond
	return func() { removeTimeout, removePoll = oldTimeout, oldPoll }
}
