package pipeline

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docker/go-units"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/envcause"
	"github.com/readme2demo/readme2demo/internal/redact"
	"github.com/readme2demo/readme2demo/internal/sandbox"
)

// sandboxRecord is command_log.json's top-level "sandbox": the profile and
// the limits the run had, and the limit that stopped it, if one did.
func sandboxRecord(image, network string, res *sandbox.Result) *commandlog.Sandbox {
	lim := res.Limits
	rec := &commandlog.Sandbox{
		Profile: res.Profile,
		Image:   image,
		Network: network,
		Disk:    lim.Disk,
		Memory:  lim.Memory,
		CPU:     float64(lim.NanoCPUs) / 1e9,
		Pids:    lim.PidsLimit,
		Inodes:  lim.Inodes,
	}
	if res.Usage.DiskPeak >= 0 {
		peak := res.Usage.DiskPeak
		rec.DiskPeak = &peak
	}
	if res.Usage.InodesPeak >= 0 {
		peak := res.Usage.InodesPeak
		rec.InodesPeak = &peak
	}
	switch {
	case res.Stopped != "":
		rec.Stopped = res.Stopped
	case res.TimedOut:
		rec.Stopped = "timeout"
	}
	if res.Stopped == sandbox.StoppedDisk && res.Usage.DiskPeak > lim.Disk {
		rec.Reached = append(rec.Reached, "disk")
	}
	if res.Stopped == sandbox.StoppedInodes {
		rec.Reached = append(rec.Reached, "inodes")
	}
	if res.Usage.OOMKills > 0 {
		rec.Reached = append(rec.Reached, "memory")
	}
	if res.Usage.PidsHit > 0 || res.Stopped == sandbox.StoppedPids {
		rec.Reached = append(rec.Reached, "pids")
	}
	if res.TimedOut {
		rec.Reached = append(rec.Reached, "timeout")
	}
	return rec
}

// signals gathers what the sandbox observed for the classifier.
func signals(res *sandbox.Result, network string, timeout time.Duration, denied []string) envcause.Signals {
	return envcause.Signals{
		Profile:       res.Profile,
		Network:       network,
		Disk:          res.Limits.Disk,
		DiskStopped:   res.Stopped == sandbox.StoppedDisk,
		DiskPeak:      res.Usage.DiskPeak,
		Inodes:        res.Limits.Inodes,
		InodesStopped: res.Stopped == sandbox.StoppedInodes,
		InodesPeak:    res.Usage.InodesPeak,
		TmpSize:       res.Limits.TmpSize,
		Memory:        res.Limits.Memory,
		OOMKills:      res.Usage.OOMKills,
		Pids:          res.Limits.PidsLimit,
		PidsHit:       res.Usage.PidsHit,
		PidsStopped:   res.Stopped == sandbox.StoppedPids,
		TimedOut:      res.TimedOut,
		Timeout:       timeout,
		Denied:        denied,
	}
}

// reachTimeout bounds the look-up of internetUnreached.
const reachTimeout = 5 * time.Second

// internetUnreached reports, under the open network, that a command could
// not reach a host that is not always up and that github.com cannot be
// looked up either: the network the run had (the host's, which the
// sandbox's bridge shares) does not reach the internet, so whether that
// host is up could not be checked. Nothing is looked up unless a command
// needs it (envcause.NeedsReachCheck). lookup nil is the system's resolver.
func internetUnreached(ctx context.Context, l *commandlog.Log, sig envcause.Signals, lookup func(context.Context, string) ([]string, error)) bool {
	need := false
	for _, c := range l.Commands {
		if c.Status != commandlog.StatusOK && envcause.NeedsReachCheck(envcause.Command{Text: c.Command, Output: c.Output, ExitCode: c.ExitCode, PipeStatus: c.PipeStatus}, sig) {
			need = true
			break
		}
	}
	if !need {
		return false
	}
	if lookup == nil {
		lookup = net.DefaultResolver.LookupHost
	}
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	_, err := lookup(ctx, "github.com")
	return err != nil
}

// sourcesUnreached are the hosts of the package sources that the log's
// index updates could not reach (envcause.SourcesUnreached), in order.
func sourcesUnreached(l *commandlog.Log) []string {
	outs := make([]string, len(l.Commands))
	for i, c := range l.Commands {
		outs[i] = c.Output
	}
	return envcause.SourcesUnreached(outs...)
}

// nameLimits marks every command that ran into a sandbox limit
// (commands[].environment) and, when such a command decided the run, says
// so in outcome_reason instead of blaming the README. keyless engines stop
// at the first failing step, so their last command decides the run, which
// a limit then blocks (keylessLimits); an AI agent may have worked around a
// limit, so for them the limits are added to the reason rather than
// replacing it.
func nameLimits(l *commandlog.Log, res *sandbox.Result, sig envcause.Signals, keyless bool, red *redact.Redactor) {
	sig.Keyless = keyless
	last := len(l.Commands) - 1
	first := -1   // the first command marked
	reached := -1 // the first step that passed only because the process limit stopped its children
	for i := range l.Commands {
		c := &l.Commands[i]
		ec := envcause.Command{
			Text: c.Command, Output: c.Output, ExitCode: c.ExitCode, PipeStatus: c.PipeStatus,
			Unknown: c.Status == commandlog.StatusUnknown, Last: i == last,
		}
		var cause envcause.Cause
		var ok bool
		if c.Status == commandlog.StatusOK {
			// A probe that fizzled out against the limit is marked, but
			// a guess never fails the run.
			if cause, ok = envcause.Reached(ec, sig); ok && reached < 0 && c.Planned != commandlog.PlannedProbe {
				reached = i
			}
		} else {
			cause, ok = envcause.Classify(ec, sig)
		}
		switch {
		case ok:
			c.Environment = &commandlog.Environment{Kind: string(cause.Kind), Detail: red.String(cause.Detail)}
		case c.Environment == nil || c.Status == commandlog.StatusOK:
			continue
		}
		// (Marked, or marked by the engine itself: the keyless runner sees
		// a command read its empty standard input.)
		if first < 0 {
			first = i
		}
	}

	switch {
	case res.Stopped == sandbox.StoppedDisk:
		l.Outcome, l.Adjusted = commandlog.OutcomeFailed, false
		peak := ""
		if res.Usage.DiskPeak > 0 {
			peak = " (measured " + units.BytesSize(float64(res.Usage.DiskPeak))
			if res.Usage.DiskDeleted > 0 {
				peak += ", of which " + units.BytesSize(float64(res.Usage.DiskDeleted)) + " held by files deleted while still open"
			}
			peak += ")"
		}
		why := "its writable space passed the disk cap of " + units.BytesSize(float64(res.Limits.Disk)) + peak
		if res.Usage.DiskError != "" && res.Usage.DiskPeak <= res.Limits.Disk {
			why = "its disk usage could not be measured, so the disk cap could not be checked (" + red.String(res.Usage.DiskError) + ")"
		}
		l.OutcomeReason = "stopped by the sandbox: " + why + lastRan(l) +
			"; raise the cap with --disk (Action input `disk`) if the README really needs more"
		return
	case res.Stopped == sandbox.StoppedInodes:
		l.Outcome, l.Adjusted = commandlog.OutcomeFailed, false
		l.OutcomeReason = "stopped by the sandbox: " + envcause.InodesPassed(sig.Inodes, sig.InodesPeak) + lastRan(l) + "; " + envcause.RaiseInodes
		return
	case res.Stopped == sandbox.StoppedPids:
		l.Outcome, l.Adjusted = commandlog.OutcomeFailed, false
		l.OutcomeReason = fmt.Sprintf("stopped by the sandbox: the process limit (%d processes and threads) stayed reached for %s, so nothing could start any more (a fork bomb, or a build that starts very many)%s; raise it with --pids (Action input `pids`) if the README really needs more",
			res.Limits.PidsLimit, sandbox.DefaultPidsStuck, lastRan(l))
		return
	case reached >= 0 && keyless && l.Outcome == commandlog.OutcomeSuccess:
		// The runner went on after a command whose processes the limit
		// refused (a fork bomb that fizzled out against it): the README
		// did not work as written, the sandbox contained it.
		l.Outcome, l.Adjusted = commandlog.OutcomeFailed, false
		l.OutcomeReason = named(l, reached)
		return
	case res.TimedOut && res.Usage.PidsHit > 0 && first < 0:
		l.OutcomeReason += fmt.Sprintf("; the process limit (%d) was reached during the run%s, which can leave nothing able to start",
			res.Limits.PidsLimit, lastRan(l))
	}
	if keyless {
		keylessLimits(l, res, first)
		return
	}
	switch {
	case res.TimedOut && res.Usage.PidsHit > 0 && first < 0:
		return
	case l.Outcome == commandlog.OutcomeSuccess:
		return
	}
	if first < 0 {
		if res.ExitCode != nil && *res.ExitCode == 137 && res.Usage.OOMKills > 0 && len(res.Transcript) == 0 {
			l.OutcomeReason = fmt.Sprintf("the agent was killed by the out-of-memory killer before it wrote a transcript: the sandbox has %s of memory; raise it with --memory (Action input `memory`)",
				units.BytesSize(float64(res.Limits.Memory)))
		}
		return
	}
	if res.TimedOut && first == last && l.Commands[last].Environment.Kind == string(envcause.CPUTime) {
		return // the reason already says the run timed out, and what to change
	}
	switch {
	case l.OutcomeReason == "":
		l.OutcomeReason = named(l, first)
	default:
		l.OutcomeReason = strings.TrimRight(l.OutcomeReason, ". ") + "; sandbox limit: " + named(l, first)
	}
}

// keylessLimits decides a keyless run that met a sandbox limit: it is
// blocked, not failed, when its deciding command (the last: the runner
// stops at the first failing step) failed because of the sandbox, when the
// run's time limit ended it, or when no step of the README passed and a
// command failed because of the sandbox. A run that failed on the README's
// account and met a limit on the way stays failed, the limit added. The reason then names the limit,
// not the README (nor the runner's advice for a README failure).
func keylessLimits(l *commandlog.Log, res *sandbox.Result, first int) {
	last := len(l.Commands) - 1
	switch {
	case l.Outcome == commandlog.OutcomeFailed && last >= 0 && l.Commands[last].Status != commandlog.StatusOK && l.Commands[last].Environment != nil:
		l.Outcome, l.OutcomeReason = commandlog.OutcomeBlocked, named(l, last)
	case res.TimedOut:
		l.Outcome, l.Adjusted = commandlog.OutcomeBlocked, false // the reason says so (explain)
	case l.Outcome == commandlog.OutcomeFailed && first >= 0:
		// It failed on the README's account (processes left running,
		// other output than the README shows) and met a limit on the
		// way: the limit is named too.
		l.OutcomeReason = strings.TrimRight(l.OutcomeReason, ". ") + "; sandbox limit: " + named(l, first)
	case l.Outcome != commandlog.OutcomeFailed && first >= 0 && !slices.ContainsFunc(l.Commands, stepPassed):
		l.Outcome, l.Adjusted = commandlog.OutcomeBlocked, false
		l.OutcomeReason = "no step of the README could be checked in the sandbox: " + named(l, first)
	}
}

// stepPassed reports a command that is not a probe and passed.
func stepPassed(c commandlog.Command) bool {
	return c.Planned != commandlog.PlannedProbe && c.Status == commandlog.StatusOK
}

// named says that command i ran into a sandbox limit, and which.
func named(l *commandlog.Log, i int) string {
	c := l.Commands[i]
	verb := "failed because of the sandbox"
	switch c.Status {
	case commandlog.StatusOK:
		verb = "passed only because the sandbox stopped what it started"
	case commandlog.StatusUnknown:
		verb = "did not finish because of the sandbox"
	}
	return fmt.Sprintf("%s %s, not the README (%s): %s", describe(c, i), verb, c.Environment.Kind, c.Environment.Detail)
}

// lastRan says which command ran last, for a run stopped by a limit.
func lastRan(l *commandlog.Log) string {
	last := len(l.Commands) - 1
	if last < 0 {
		return ""
	}
	if l.Commands[last].Status == commandlog.StatusUnknown {
		return " while " + describe(l.Commands[last], last) + " ran"
	}
	return " after " + describe(l.Commands[last], last)
}

// describe names a command for a reason: its README line when known.
func describe(c commandlog.Command, i int) string {
	cmd := c.Command
	if j := strings.IndexByte(cmd, '\n'); j >= 0 {
		cmd = cmd[:j] + " …"
	}
	if len(cmd) > 120 {
		cmd = cmd[:120] + "…"
	}
	if c.Source != nil {
		return fmt.Sprintf("%s line %d (%s)", c.Source.File, c.Source.Line, strconv.Quote(cmd))
	}
	return fmt.Sprintf("command %d (%s)", i+1, strconv.Quote(cmd))
}

// describeSandbox is the progress line about the sandbox: the profile and
// the limits (the defaults filled in the way the sandbox fills them).
func describeSandbox(profile string, r sandbox.Resources) string {
	disk, mem := cmp.Or(r.Disk, sandbox.DefaultDisk), cmp.Or(r.Memory, sandbox.DefaultMemory)
	what := "the agent user has passwordless sudo; the root file system, /tmp and $HOME are the container's own layer"
	if profile == sandbox.ProfileStrict {
		what = "no capabilities, no-new-privileges (no sudo), read-only root file system"
	}
	cpus := "CPUs: up to 2"
	if r.NanoCPUs > 0 {
		cpus = "CPUs: " + strconv.FormatFloat(float64(r.NanoCPUs)/1e9, 'f', -1, 64)
	}
	return fmt.Sprintf("sandbox %s: %s; disk cap %s, memory %s, %s", profile, what,
		units.BytesSize(float64(disk)), units.BytesSize(float64(mem)), cpus)
}
