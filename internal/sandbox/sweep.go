package sandbox

import (
	"context"
	"errors"
	"fmt"
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
