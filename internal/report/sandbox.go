package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/docker/go-units"

	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// maxLimitRows caps the list of commands that hit a sandbox limit.
const maxLimitRows = 20

// SandboxLine describes the sandbox a run had, for people: the profile,
// the limits, the peak disk and file use, the limit that stopped the run. "" when
// the log does not say (logs from `parse`, older logs).
func SandboxLine(sb *commandlog.Sandbox) string {
	if sb == nil {
		return ""
	}
	parts := []string{sb.Profile + " profile"}
	// The disk and file caps are measured while the run goes on, not
	// enforced by the host's storage (SECURITY.md): the line says so.
	if sb.Disk > 0 {
		d := "disk cap " + units.BytesSize(float64(sb.Disk)) + " (measured, not enforced"
		if sb.DiskPeak != nil {
			d += "; peak " + units.BytesSize(float64(*sb.DiskPeak))
		}
		parts = append(parts, d+")")
	}
	if sb.Inodes > 0 {
		// Files, directories and links; not measured where the daemon
		// names no directory for the container's layer (dev profile).
		f := fmt.Sprintf("file cap %d", sb.Inodes)
		if sb.InodesPeak != nil {
			f += fmt.Sprintf(" (measured, not enforced; peak %d)", *sb.InodesPeak)
		} else {
			f += " (not measured on this host)"
		}
		parts = append(parts, f)
	}
	if sb.Memory > 0 {
		parts = append(parts, "memory "+units.BytesSize(float64(sb.Memory)))
	}
	if sb.CPU > 0 {
		parts = append(parts, strconv.FormatFloat(sb.CPU, 'f', -1, 64)+" CPUs")
	}
	if sb.Pids > 0 {
		parts = append(parts, fmt.Sprintf("%d processes", sb.Pids))
	}
	if sb.Network != "" {
		parts = append(parts, "network "+sb.Network)
	}
	line := strings.Join(parts, " · ")
	if sb.Stopped != "" {
		line += " · stopped by the " + sb.Stopped + " limit"
	} else if len(sb.Reached) > 0 {
		line += " · reached: " + strings.Join(sb.Reached, ", ")
	}
	return line
}

// KeyWarning is the warning about API credentials that were in the
// agent's environment (the egress proxy could not hold them), for people;
// "" when there were none or the log does not say.
func KeyWarning(sb *commandlog.Sandbox) string {
	if sb == nil || len(sb.KeysInContainer) == 0 {
		return ""
	}
	why := ""
	if sb.KeysWhy != "" {
		why = " (" + sb.KeysWhy + ")"
	}
	verb := "was"
	if len(sb.KeysInContainer) > 1 {
		verb = "were"
	}
	return fmt.Sprintf("%s %s in the agent's environment%s: a README could read it, and only redaction kept it out of what is published",
		strings.Join(sb.KeysInContainer, ", "), verb, why)
}

// sandbox renders the sandbox line, the warning about keys in the
// container, and the commands that failed because of a sandbox limit,
// with what to change.
func (r *renderer) sandbox() string {
	var b strings.Builder
	if line := SandboxLine(r.log.Sandbox); line != "" {
		fmt.Fprintf(&b, "**Sandbox:** %s\n\n", Text(r.s(line)))
	}
	if w := KeyWarning(r.log.Sandbox); w != "" {
		fmt.Fprintf(&b, "> [!WARNING]\n> **API key in the sandbox:** %s.\n\n", Text(r.s(w)))
	}
	n := 0
	for i, c := range r.log.Commands {
		if c.Environment == nil {
			continue
		}
		if n == 0 {
			b.WriteString("### Sandbox limits hit (not the README's fault)\n\n")
		}
		if n == maxLimitRows {
			b.WriteString("- … and more (see `command_log.json`)\n")
			break
		}
		n++
		where := ""
		if c.Source != nil {
			where = fmt.Sprintf(" (%s)", r.sourceCell(c))
		}
		fmt.Fprintf(&b, "- #%d %s%s — **%s**: %s\n", i+1, codeSpan(clip(r.s(c.Command), maxCommandCell)), where,
			Text(clip(r.s(c.Environment.Kind), 40)), Text(clip(r.s(c.Environment.Detail), maxReasonBytes)))
	}
	if n > 0 {
		b.WriteString("\n")
	}
	return b.String()
}
