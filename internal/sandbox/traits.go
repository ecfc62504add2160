package sandbox

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/go-units"
)

// A Trait is one aspect of a profile's container as the docs state it.
type Trait struct {
	Aspect string // what it is about: "user", "sudo", "capabilities", …
	Text   string // what the profile's container does, a markdown phrase
}

// Traits says what a profile's container is, aspect by aspect, in the same
// order for every profile. Each phrase is read from the configuration the
// profile builds (containerConfigs, with the profile's defaults), never
// written beside it: the README's security notes and docs/action.md are
// generated from it (TestDocsDescribeProfiles), so what they promise is what
// the code does.
func Traits(profile string) ([]Trait, error) {
	// CPUs default to the host's when it has fewer: state the default.
	s, err := Spec{Image: "image", Command: "true", Profile: profile, Resources: Resources{NanoCPUs: DefaultNanoCPUs}}.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg, hc := containerConfigs(s, s.Now().Add(s.Timeout))
	nnp := slices.Contains(hc.SecurityOpt, "no-new-privileges:true")
	var t []Trait
	add := func(aspect, format string, a ...any) { t = append(t, Trait{aspect, fmt.Sprintf(format, a...)}) }

	user := "root"
	if u, _, _ := strings.Cut(cfg.User, ":"); u != "" && u != "0" && u != "root" {
		user = "a non-root user (uid " + u + ")"
	}
	add("user", "%s", user)
	switch {
	case nnp:
		add("sudo", "no sudo (`no-new-privileges`: no setuid program gains privileges)")
	case slices.Contains(hc.CapAdd, "SETUID") && slices.Contains(hc.CapAdd, "SETGID"):
		add("sudo", "**passwordless sudo** (no `no-new-privileges`: sudo is setuid), so the agent can become root inside the container")
	default:
		add("sudo", "no `no-new-privileges`, but sudo cannot change user (no SETUID and SETGID)")
	}
	switch {
	case !slices.Contains(hc.CapDrop, "ALL"):
		add("capabilities", "Docker's default capabilities")
	case len(hc.CapAdd) == 0:
		add("capabilities", "all capabilities dropped")
	default:
		add("capabilities", "root keeps %s, every other capability is dropped (the agent user itself has none)", codeList(hc.CapAdd))
	}
	if hc.ReadonlyRootfs {
		var writable []string
		for _, m := range hc.Mounts {
			if m.Type == mount.TypeVolume {
				writable = append(writable, m.Target)
			}
		}
		fs := "a **read-only root file system**; writable: " + codeList(writable) + " (volumes)"
		if opts, ok := hc.Tmpfs["/tmp"]; ok {
			fs += " and `/tmp` (" + tmpfsSize(opts) + " tmpfs)"
		}
		add("root file system", "%s", fs)
	} else {
		add("root file system", "a **writable root file system**: the container's own layer (`/tmp`, home and caches included), thrown away with it")
	}
	add("processes", "at most %d processes", *hc.PidsLimit)

	// The same for every profile today; listed so that a profile that
	// weakens one of them shows it.
	if hc.Privileged {
		add("privileged", "**privileged**")
	} else {
		add("privileged", "never privileged")
	}
	add("mounts", "%s", mountsText(hc))
	switch opt := seccompOptionIn(hc.SecurityOpt); {
	case opt == "seccomp=unconfined":
		add("seccomp", "**no seccomp filter**")
	case opt != "":
		add("seccomp", "Docker's default seccomp profile, with `fallocate` refused")
	default:
		add("seccomp", "the daemon's default seccomp profile")
	}
	if hc.Init != nil && *hc.Init {
		add("init", "an init process that reaps orphans")
	}
	mem := sizeText(hc.Memory)
	if hc.MemorySwap == hc.Memory {
		mem += " of memory without swap"
	} else {
		mem += " of memory and swap"
	}
	add("limits", "%s, %g CPUs (at most the host's), a %s disk cap and a cap of %s files, directories and links on what the run writes (`--memory`, `--cpus`, `--disk`, `--inodes`)",
		mem, float64(hc.NanoCPUs)/1e9, sizeText(s.Disk), groupDigits(s.Inodes))
	return t, nil
}

// groupDigits writes n with a comma every three digits (1,310,720).
func groupDigits(n int64) string {
	d := strconv.FormatInt(n, 10)
	for i := len(d) - 3; i > 0; i -= 3 {
		d = d[:i] + "," + d[i:]
	}
	return d
}

// seccompOptionIn returns the seccomp option of a SecurityOpt list, or "".
func seccompOptionIn(opts []string) string {
	for _, o := range opts {
		if strings.HasPrefix(o, "seccomp=") || strings.HasPrefix(o, "seccomp:") {
			return o
		}
	}
	return ""
}

// codeList renders names as a list of code spans: `A`, `B` and `C`.
func codeList(names []string) string {
	c := make([]string, len(names))
	for i, n := range names {
		c[i] = "`" + n + "`"
	}
	if len(c) < 2 {
		return strings.Join(c, "")
	}
	return strings.Join(c[:len(c)-1], ", ") + " and " + c[len(c)-1]
}

// tmpfsSize reads the size of tmpfs options ("rw,…,size=512m") for people.
func tmpfsSize(opts string) string {
	for _, o := range strings.Split(opts, ",") {
		if v, ok := strings.CutPrefix(o, "size="); ok {
			if n, err := units.RAMInBytes(v); err == nil {
				return sizeText(n)
			}
			return v
		}
	}
	return "unbounded"
}

// sizeText renders a size in bytes for people: "4 GiB", "512 MiB".
func sizeText(n int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.size {
			return fmt.Sprintf("%.4g %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// mountsText says what of the host the container sees through mounts.
func mountsText(hc *container.HostConfig) string {
	host := len(hc.Binds) > 0
	for _, m := range hc.Mounts {
		host = host || m.Type == mount.TypeBind
	}
	if host {
		return "a host path mounted"
	}
	return "no host path and no Docker socket mounted (the repository is copied in)"
}
