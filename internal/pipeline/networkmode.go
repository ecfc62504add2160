package pipeline

import (
	"fmt"
	"strings"
)

// ParseNetwork maps a --network flag or network input to a policy:
// "bridge" is the old name of open, and "" means DefaultNetwork(engine).
// The CLI and the Action both read the policy through it.
func ParseNetwork(value, engine string) (string, error) {
	switch value {
	case "":
		return DefaultNetwork(engine), nil
	case "bridge":
		return NetworkOpen, nil
	}
	for _, m := range NetworkModes {
		if value == m {
			return m, nil
		}
	}
	return "", fmt.Errorf("%q: use %s (bridge is open)", value, strings.Join(NetworkModes, ", "))
}
