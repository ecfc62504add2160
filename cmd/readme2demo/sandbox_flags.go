package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// sandboxFlags are --sandbox, --disk, --inodes, --memory, --cpus and --pids.
type sandboxFlags struct {
	profile, disk, memory, cpus string
	pids, inodes                int64
}

func addSandboxFlags(cmd *cobra.Command, b *sandboxFlags) {
	f := cmd.Flags()
	f.StringVar(&b.profile, "sandbox", sandbox.DefaultProfile, `the sandbox profile: "dev" (like a developer's machine or a GitHub runner: passwordless sudo, the root file system, /tmp and caches writable on disk in the container's own layer, CI=true) or "strict" (no capabilities, no sudo, read-only root file system, 512 MiB tmpfs /tmp); docs/sandbox.md`)
	f.StringVar(&b.disk, "disk", "10g", "cap on everything the run writes, as bytes or with k/m/g/t: the run stops when it is passed, and no single file may be larger")
	f.Int64Var(&b.inodes, "inodes", 0, "cap on the files, directories and links the run may hold in what it writes: the run stops when it is passed (default: one per 8 KiB of --disk, 1310720 for 10g)")
	f.StringVar(&b.memory, "memory", "4g", "the sandbox's memory (no swap): the out-of-memory killer ends a command past it")
	f.StringVar(&b.cpus, "cpus", "", "CPUs the sandbox may use, e.g. 2 or 1.5 (default: 2, at most the host's)")
	f.Int64Var(&b.pids, "pids", 0, "processes and threads the sandbox may run (default: 1024 under dev, 512 under strict); a count stuck at the limit stops the run")
}

// resolve checks the profile and reads the limits into the sandbox's
// resources (zero values: the profile's defaults).
func (b sandboxFlags) resolve() (sandbox.Resources, error) {
	var r sandbox.Resources
	if err := sandbox.CheckProfile(b.profile); err != nil {
		return r, fmt.Errorf("--sandbox: %s", strings.TrimPrefix(err.Error(), "sandbox: "))
	}
	var err error
	if r.Disk, err = sandbox.ParseSize(b.disk); err != nil {
		return r, fmt.Errorf("--disk: %v", err)
	}
	if r.Memory, err = sandbox.ParseSize(b.memory); err != nil {
		return r, fmt.Errorf("--memory: %v", err)
	}
	if b.cpus != "" {
		if r.NanoCPUs, err = sandbox.ParseCPUs(b.cpus); err != nil {
			return r, fmt.Errorf("--cpus: %v", err)
		}
	}
	if b.pids < 0 {
		return r, fmt.Errorf("--pids: %d is negative", b.pids)
	}
	r.PidsLimit = b.pids
	if b.inodes < 0 {
		return r, fmt.Errorf("--inodes: %d is negative", b.inodes)
	}
	r.Inodes = b.inodes
	return r, nil
}
