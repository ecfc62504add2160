package sandbox

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
)

// Sweep removes sandbox containers whose deadline has passed: leftovers of
// runs that were SIGKILLed or lost their daemon connection. Containers of
// runs still in time are left alone, whoever started them. It returns the
// ids it removed.
func Sweep(ctx context.Context, d Docker, now time.Time) ([]string, error) {
	list, err := d.ContainerList(ctx, container.ListOptions{
		All:     true,
		Filters: filters.NewArgs(filters.Arg("label", LabelManaged+"=true")),
	})
	if err != nil {
		return nil, fmt.Errorf("list sandbox containers: %w", err)
	}
	// A disk meter goes before the container whose volumes it holds, or
	// those anonymous volumes would outlive both.
	sort.SliceStable(list, func(i, j int) bool {
		return list[i].Labels[LabelRole] == RoleDiskMeter && list[j].Labels[LabelRole] != RoleDiskMeter
	})
	var removed []string
	var errs []error
	for _, c := range list {
		dl, err := strconv.ParseInt(c.Labels[LabelDeadline], 10, 64)
		if err == nil && time.Unix(dl, 0).After(now) {
			continue // still in time (an unparsable deadline is garbage)
		}
		err = d.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
		if err != nil && !isGone(err) {
			errs = append(errs, fmt.Errorf("remove container %.12s: %w", c.ID, err))
			continue
		}
		removed = append(removed, c.ID)
	}
	return removed, errors.Join(errs...)
}
