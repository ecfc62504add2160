//go:build !linux

package sandbox

// seccompOption is "" off Linux: the profile is generated from Linux
// constants, so a macOS or Windows build leaves the daemon's default
// seccomp profile in place (without the fallocate rule of
// seccomp_linux.go; the disk cap's polling and file-size limit still hold).
func seccompOption() string { return "" }

// meterSeccompOption is "" off Linux, for the same reason.
func meterSeccompOption() string { return "" }
