package sandbox

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/readme2demo/readme2demo/internal/containerpath"
	"github.com/readme2demo/readme2demo/internal/shell"
	"github.com/readme2demo/readme2demo/internal/timing"
)

// removeTimeout bounds one removal call, and removePoll spaces the looks
// at a container the daemon is still deleting (variables: tests shorten
// them).
var (
	removeTimeout = 30 * time.Second
	removePoll    = time.Second
)

// meterFirstTimeout bounds the wait for the strict profile's disk meter to
// measure once before the command starts.
const meterFirstTimeout = 60 * time.Second

// Timeouts of the steps that run on a fresh context after the run's own
// context may have ended: the whole cleanup stays well inside the 10 s a
// cancelled CI job allows.
const (
	killTimeout = 5 * time.Second
	// limitKillTimeout bounds the kill after the timeout or the disk cap.
	limitKillTimeout = 30 * time.Second
	copyOutTimeout   = 20 * time.Second
	cancelCopyOut    = 3 * time.Second // per file, when the run was cancelled
	// removeWait bounds the wait for a container the daemon is still
	// deleting after a removal call gave up (not on cancellation).
	removeWait  = 10 * time.Minute
	pollTimeout = 10 * time.Second
	outputTail  = 64 << 10
	pollChunk   = 8 << 20
)

// Run runs spec.Command in a fresh container and returns what it left.
//
// The container is always removed before Run returns, on a fresh context,
// even when ctx was cancelled. A timeout is not an error: Result.TimedOut is
// set and the partial transcript is returned. A cancelled ctx returns the
// partial Result together with an error wrapping ctx's error. Errors before
// the command started are *ConfigError, *ImageMissingError or wrapped daemon
// errors; the Result is never nil.
func Run(ctx context.Context, d Docker, spec Spec) (res *Result, err error) {
	s, err := spec.withDefaults()
	res = &Result{RunID: s.RunID, Profile: s.Profile, Limits: s.Resources, Usage: Usage{DiskPeak: -1, InodesPeak: -1, OOMKills: -1}}
	if err != nil {
		return res, err
	}
	start := s.Now()
	defer func() { res.Elapsed = s.Now().Sub(start); res.Phases.Total = res.Elapsed }()
	phase := func(p timing.Phase) func() { return res.Phases.Start(p, s.Now) }

	// Leftovers of earlier runs that died without cleaning up. Best effort:
	// a failing sweep must not stop this run.
	done := phase(timing.Sweep)
	_, _ = Sweep(ctx, d, start)
	done()

	deadline := start.Add(s.Timeout + s.Grace)
	cfg, hc := containerConfigs(s, deadline)
	name := ContainerName(s.RunID)
	done = phase(timing.Create)
	created, err := d.ContainerCreate(ctx, cfg, hc, nil, nil, name)
	done()
	if err != nil {
		// The daemon may have created it before ctx ended: remove by name.
		_ = remove(d, name)
		if cerrdefs.IsNotFound(err) {
			return res, &ImageMissingError{Image: s.Image}
		}
		return res, fmt.Errorf("create container: %w", err)
	}
	res.ContainerID = created.ID
	defer func() {
		defer phase(timing.Remove)()
		// What the run found is kept whatever the removal does: a
		// container left behind is the sweep's, and the caller says so.
		if rerr := removeWaiting(ctx, d, created.ID); rerr != nil {
			res.RemoveErr = errors.Join(res.RemoveErr, rerr)
		}
	}()

	// The disk meter (meter.go) starts in the background; removed before
	// the sandbox container (defers run last first): it holds its volumes
	// and layer.
	layer, labels := inspectCreated(ctx, d, created.ID)
	word := ""
	if promisesTar(labels) {
		word = newOutputWord() // the image has tar: the copy-out may come on the output
	}
	meter := launchMeter(ctx, d, s, created.ID, layer, deadline)
	defer func() {
		defer phase(timing.Remove)()
		if rerr := meter.remove(); rerr != nil {
			res.RemoveErr = errors.Join(res.RemoveErr, rerr)
		}
	}()

	if s.Prepare != nil {
		done = phase(timing.Input)
		files, err := s.Prepare(ctx, func(p string, limit int64) ([]byte, error) { return readFile(ctx, d, created.ID, p, limit) })
		done()
		if err != nil {
			return res, fmt.Errorf("prepare run: %w", err)
		}
		s.Files = slices.Concat(s.Files, files)
	}
	// The container starts with the command, which first waits for its
	// environment on its standard input: handing that over releases it,
	// once everything is in and (strict) the meter has measured, as an
	// exec did before the command was the main process.
	cmd, err := startCommand(ctx, d, created.ID, s, res, word)
	if err != nil {
		return res, err
	}
	meter.sandboxRunning()
	way := copyWayOf(s, labels, hc.ReadonlyRootfs)
	feed, err := handOver(ctx, d, created.ID, s, res, phase, cmd, meter, way, deadline)
	if err != nil {
		cmd.close()
		return res, err
	}
	delivered, execErr := execute(ctx, d, created.ID, s, res, feed, cmd)
	if way == copyOnInput {
		if err := inputCopyFailure(res); err != nil {
			return res, errors.Join(err, execErr)
		}
	}
	go func() { _ = meter.remove() }() // beside the copy-out; its error is the deferred call's
	// Collect what was written, on a fresh context: after a timeout or a
	// cancellation the partial transcript is the most useful thing left.
	perFile := copyOutTimeout
	if res.Canceled {
		perFile = cancelCopyOut
	}
	copyOutAll(d, created.ID, s, res, perFile, phase, cmd.framedFiles())
	if s.OnTranscript != nil && int64(len(res.Transcript)) > delivered {
		// The tail the last poll missed.
		s.OnTranscript(res.Transcript[delivered:])
	}
	return res, execErr
}

// handOver copies the repository and the files in, lets the strict
// profile's meter measure once, and releases the command: its
// environment, and with the copy on its input (copyOnInput) the copy
// behind it. The feed is the disk watcher's; on an error the caller
// closes cmd.
func handOver(ctx context.Context, d Docker, id string, s Spec, res *Result, phase func(timing.Phase) func(), cmd *started, meter *runMeter, way copyWay, deadline time.Time) (*meterFeed, error) {
	if way != copyOnInput {
		done := phase(timing.CopyIn)
		err := copyIn(ctx, d, id, s, res, way == copyOneArchive)
		done()
		if err != nil {
			return nil, err
		}
	}
	// The strict profile's volumes are measured by the meter alone: the
	// README's commands start only once it measures (on a loaded machine
	// its first measurement can come a second late, and a fast writer
	// fills a gigabyte meanwhile: CI saw 1043 MiB past a 384 MiB cap after
	// 3 measurements; and a first measurement long before the commands
	// start leaves the next ones spaced for a README that writes nothing:
	// CI saw 3285 MiB past a 1024 MiB cap when the container started only
	// after it). The dev profile's layer is measured by the daemon until
	// the meter's first measurement, so its commands do not wait: the
	// watcher switches to the meter when it comes.
	var feed *meterFeed
	if s.Profile == ProfileStrict {
		done := phase(timing.Meter)
		var err error
		feed, err = meter.feed(ctx, true)
		done()
		if err != nil {
			res.Canceled = ctx.Err() != nil
			return nil, err
		}
	} else {
		feed, _ = meter.feed(ctx, false)
	}
	if way != copyOnInput {
		cmd.release(s.Env)
		return feed, nil
	}
	done := phase(timing.CopyIn)
	err := cmd.releaseWithCopy(ctx, s, res, deadline)
	done()
	if err != nil {
		res.Canceled = ctx.Err() != nil
		return nil, err
	}
	return feed, nil
}

// firstMeasurement waits for the disk meter's first measurement (or the
// end of its stream, whose error the watcher then reports).
func firstMeasurement(ctx context.Context, vs *volumeStream) error {
	t := time.NewTimer(meterFirstTimeout)
	defer t.Stop()
	select {
	case <-vs.first:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("run agent: %w", context.Cause(ctx))
	case <-t.C:
		return fmt.Errorf("the disk meter made no measurement within %s: the README's commands were not started", meterFirstTimeout)
	}
}

// started is the command as the container's main process: its attach
// (output, and standard input) and the wait for its end.
type started struct {
	att      types.HijackedResponse
	exited   <-chan container.WaitResponse
	waitErr  <-chan error
	stopWait context.CancelFunc
	// out keeps the output's tail, read from the start: the command may
	// write before its release ends (tar's errors on a copy-in it could
	// not take), and must not block on output nobody reads meanwhile.
	// streamed closes at the output's end, after which framed holds the
	// files the shell wrote to its output as it exited (outputcopy.go)
	// when it wrote them whole (read through framedFiles).
	out      *tailBuffer
	streamed chan struct{}
	word     string
	framed   map[string][]byte
}

func (c *started) close() { c.stopWait(); c.att.Close() }

// framedFiles are the files the shell wrote to its output, once the output
// has ended; nil before (execute gave up waiting for its end).
func (c *started) framedFiles() map[string][]byte {
	select {
	case <-c.streamed:
		return c.framed
	default:
		return nil
	}
}

// startCommand starts the container, whose main process is the command,
// attached and waited for before the start: nothing the command writes,
// and not its end, can come before them. The command then waits for
// release.
func startCommand(ctx context.Context, d Docker, id string, s Spec, res *Result, word string) (*started, error) {
	done := res.Phases.Start(timing.RunnerStart, s.Now)
	att, err := d.ContainerAttach(ctx, id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		done()
		return nil, fmt.Errorf("attach container: %w", err)
	}
	waitCtx, stopWait := context.WithCancel(context.WithoutCancel(ctx))
	exited, waitErr := d.ContainerWait(waitCtx, id, container.WaitConditionNextExit)
	c := &started{att: att, exited: exited, waitErr: waitErr, stopWait: stopWait, out: &tailBuffer{max: outputTail}, streamed: make(chan struct{}), word: word}
	go func() {
		defer close(c.streamed)
		if word == "" {
			_, _ = stdcopy.StdCopy(c.out, c.out, att.Reader)
			return
		}
		split := newOutputSplitter(c.out, word, outputLimits(s))
		_, _ = stdcopy.StdCopy(split, c.out, att.Reader)
		c.framed = split.Close()
	}()
	done()
	done = res.Phases.Start(timing.Start, s.Now)
	err = d.ContainerStart(ctx, id, container.StartOptions{})
	done()
	if err != nil {
		c.close()
		return nil, fmt.Errorf("start container: %w", err)
	}
	return c, nil
}

// release hands the command env (and the copy-out's word) on its standard
// input and closes it: the command waits for that before it does anything
// else (inputScript). The write goes into the connection's buffer at once;
// a daemon that takes none of it for killTimeout gives up the write, and a
// command that ended first leaves nothing to read it: either way the run
// goes on.
func (c *started) release(env map[string]string) {
	_ = c.att.Conn.SetWriteDeadline(time.Now().Add(killTimeout))
	_, _ = c.att.Conn.Write(c.input(env))
	_ = c.att.CloseWrite()
}

// execute waits for the started command with the timeout, streams the
// transcript to OnTranscript, and kills the container when the timeout, a
// limit or ctx ends the run first.
func execute(ctx context.Context, d Docker, id string, s Spec, res *Result, feed *meterFeed, c *started) (delivered int64, err error) {
	defer c.close()
	// Until the command's end is known: the container exited, or was
	// killed.
	defer res.Phases.Start(timing.Commands, s.Now)()
	att := c.att
	ended := c.ended(c.streamed)

	pollCtx, stopPoll := context.WithCancel(context.WithoutCancel(ctx))
	offset := make(chan int64, 1)
	if s.OnTranscript != nil && s.TranscriptPath != "" {
		go func() { offset <- poll(pollCtx, d, id, s) }()
	} else {
		offset <- 0
	}

	hit := make(chan struct{})
	watchCtx, stopWatch := context.WithCancel(context.WithoutCancel(ctx))
	watched := make(chan diskWatch, 1)
	go func() { watched <- watchDisk(watchCtx, d, id, s, feed, hit) }()

	timer := time.NewTimer(s.Timeout)
	defer timer.Stop()
	var runErr error
	var code *int
	exitKnown := false
	select {
	case code = <-ended:
		exitKnown = true
	case <-timer.C:
		res.TimedOut = true
	case <-hit:
		res.Stopped = StoppedDisk // or StoppedInodes, StoppedPids, below
	case <-ctx.Done():
		res.Canceled = true
		runErr = fmt.Errorf("run agent: %w", context.Cause(ctx))
	}
	stopWatch()
	w := <-watched
	res.Usage.DiskPeak, res.Usage.DiskDeleted, res.Usage.DiskMeasures, res.Usage.DiskUnmeasured = w.peak, w.deleted, w.measures, w.unmeasured && w.measures == 0
	res.Usage.InodesPeak, res.Usage.LayerMetered = w.inodesPeak, w.layerMetered
	res.Usage.PidsHit = w.pidsHit
	switch {
	case res.Stopped != "" && w.pidsStuck:
		res.Stopped = StoppedPids
	case res.Stopped != "" && w.overInodes:
		res.Stopped = StoppedInodes
	}
	if w.lastErr != nil {
		res.Usage.DiskError = w.lastErr.Error()
	}
	if !exitKnown {
		// A cancelled run must be gone within seconds; a run stopped by a
		// limit may take longer to die (a fork bomb's thousands of
		// processes). A kill the daemon does not confirm in time (seen on a
		// loaded machine) is no error by itself: Run force-removes the
		// container next, and that reports if the container cannot go.
		kt := killTimeout
		if !res.Canceled {
			kt = limitKillTimeout
		}
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), kt)
		if err := d.ContainerKill(kctx, id, "KILL"); err != nil && !isNotFound(err) && !cerrdefs.IsConflict(err) &&
			!errors.Is(err, context.DeadlineExceeded) {
			runErr = errors.Join(runErr, fmt.Errorf("kill container: %w", err))
		}
		cancel()
		att.Close() // a killed command's last output is not waited for
	}
	// The output's last bytes: the stream ends as the container stops.
	select {
	case <-c.streamed:
	case <-time.After(killTimeout):
		att.Close()
	}
	stopPoll()
	off := <-offset
	res.Output = c.out.Bytes()

	if exitKnown && code == nil {
		if code, err = stoppedExitCode(ctx, d, id); err != nil {
			return off, err
		}
	}
	res.ExitCode = code
	return off, runErr
}

// ended says when the command ended, with its exit status when the
// daemon's wait gave it; when the wait failed, the end of the output
// (streamed closed) is the end of the command, with no status.
func (c *started) ended(streamed <-chan struct{}) <-chan *int {
	ended := make(chan *int, 1)
	go func() {
		select {
		case w := <-c.exited:
			if w.Error == nil {
				code := int(w.StatusCode)
				ended <- &code
				return
			}
		case <-c.waitErr:
		}
		<-streamed
		ended <- nil
	}()
	return ended
}

// stoppedExitCode is the exit status the container's state holds, nil
// while it still runs.
func stoppedExitCode(ctx context.Context, d Docker, id string) (*int, error) {
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killTimeout)
	defer cancel()
	ins, _, err := d.ContainerInspectWithRaw(ictx, id, false)
	if err != nil {
		return nil, fmt.Errorf("inspect container: %w", err)
	}
	if ins.ContainerJSONBase != nil && ins.State != nil && !ins.State.Running {
		return &ins.State.ExitCode, nil
	}
	return nil, nil
}

// commandScript is what the container's bash runs: Env (and the copy-in)
// read, the signals' EXIT trap set, then the command.
func commandScript(s Spec) string { return inputScript + signalsTrap(s) + s.Command }

// readSignals reads what the kernel counted about the run after the
// command: the cgroup's OOM kills and refused forks (cgroup v1 or v2
// files), and the daemon's OOMKilled state (which also holds after a
// kill). The files are read by the command's own shell as it exits (its
// EXIT trap, signalsTrap: trapped is what it wrote); when it wrote nothing
// (it was killed, or replaced itself with exec) the counters went with the
// container, and only the daemon's OOMKilled is known.
//
// The same script checks the files of Spec.CollectKnown: it returns those
// the command left as they were (same size and SHA-256), which need no copy
// out.
func readSignals(d Docker, id string, s Spec, res *Result, trapped []byte) (unchanged map[string]bool) {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	if trapped != nil && !res.TimedOut && !res.Canceled && res.Stopped == "" {
		_, known := signalsScript(s)
		oom, pids := parseCgroupCounters(string(trapped))
		if oom >= 0 {
			res.Usage.OOMKills = oom
		}
		if pids > 0 {
			res.Usage.PidsHit += pids
		}
		unchanged = parseUnchanged(string(trapped), known, s.CollectKnown)
	}
	if c, _, err := d.ContainerInspectWithRaw(ctx, id, false); err == nil && c.ContainerJSONBase != nil && c.State != nil {
		if c.State.OOMKilled && res.Usage.OOMKills <= 0 {
			res.Usage.OOMKills = 1
		} else if !c.State.Running && res.Usage.OOMKills < 0 {
			// A stopped container's OOMKilled covers its whole life.
			res.Usage.OOMKills = 0
		}
	}
	return unchanged
}

// signalsPath is where the command's EXIT trap writes the signals, and
// signalsLimit the most of them read.
const (
	signalsPath  = containerpath.RunDir + "/.signals"
	signalsLimit = 64 << 10
)

// signalsScript is the shell script that prints the signals readSignals
// reads, and the known files in the order its lines number them.
func signalsScript(s Spec) (script string, known []string) {
	known = slices.Sorted(maps.Keys(s.CollectKnown))
	return "for f in /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory.events " +
		"/sys/fs/cgroup/pids/pids.events /sys/fs/cgroup/pids.events; do [ -r \"$f\" ] && while read -r k v; do echo \"$f $k $v\"; done < \"$f\"; done" +
		knownScript(known, s.CollectKnown), known
}

// signalsTrap is the line put before the command: when its shell exits,
// the signals script writes signalsPath (through a file of its own, moved
// into place, so nothing the command left at that path is written
// through). The command's exit status is kept: the trap does not exit.
// This spares the exec readSignals would otherwise make (about a tenth of
// a keyless run).
func signalsTrap(s Spec) string {
	script, _ := signalsScript(s)
	dir := path.Dir(signalsPath)
	trap := "{ t=$(mktemp " + shell.Quote(dir+"/.signals.XXXXXX") + ") && { { " + script + "; } > \"$t\"; mv -fT \"$t\" " + shell.Quote(signalsPath) + "; }; " +
		outputCopyScript(outputWants(s)) + "; } 2>/dev/null"
	return "trap " + shell.Quote(trap) + " EXIT\n"
}

// knownScript is the shell that prints "known <i> <sha256>" for each file
// known[i] that is still a regular file (not a symlink) of its known size:
// a file the command grew is never read whole.
func knownScript(known []string, content map[string][]byte) string {
	var b strings.Builder
	for i, p := range known {
		q := shell.Quote(p)
		fmt.Fprintf(&b, "; [ -f %s ] && [ ! -L %s ] && [ \"$(wc -c < %s)\" -eq %d ] && h=$(sha256sum < %s) && echo \"known %d ${h%%%% *}\"",
			q, q, q, len(content[p]), q, i)
	}
	return b.String()
}

// parseUnchanged reads knownScript's lines: the files whose SHA-256 is
// that of their known content.
func parseUnchanged(out string, known []string, content map[string][]byte) map[string]bool {
	var unchanged map[string]bool
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "known" {
			continue
		}
		i, err := strconv.Atoi(f[1])
		if err != nil || i < 0 || i >= len(known) {
			continue
		}
		sum := sha256.Sum256(content[known[i]])
		if f[2] == hex.EncodeToString(sum[:]) {
			if unchanged == nil {
				unchanged = map[string]bool{}
			}
			unchanged[known[i]] = true
		}
	}
	return unchanged
}

// parseCgroupCounters reads "oom_kill N" (memory.oom_control, v1;
// memory.events, v2) and "max N" (pids.events) lines; -1 when absent.
func parseCgroupCounters(out string) (oomKills, pidsMax int) {
	oomKills, pidsMax = -1, -1
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			continue
		}
		switch {
		case f[1] == "oom_kill" && strings.Contains(f[0], "memory"):
			oomKills = max(oomKills, n)
		case f[1] == "max" && strings.Contains(f[0], "pids"):
			pidsMax = max(pidsMax, n)
		}
	}
	return oomKills, pidsMax
}

// execOutput runs cmd in the container and returns its stdout; ok is false
// when it could not run.
func execOutput(ctx context.Context, d Docker, id, user string, cmd []string) ([]byte, bool) {
	ex, err := d.ContainerExecCreate(ctx, id, container.ExecOptions{
		User: user, Cmd: cmd, AttachStdout: true, Env: []string{"PATH=/usr/bin:/bin"},
	})
	if err != nil {
		return nil, false
	}
	att, err := d.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	if err != nil {
		return nil, false
	}
	defer att.Close()
	go func() { <-ctx.Done(); att.Close() }()
	var buf bytes.Buffer
	if _, err := stdcopy.StdCopy(&buf, io.Discard, att.Reader); err != nil {
		return nil, false
	}
	return buf.Bytes(), true
}

// poll reads the transcript's new bytes every PollInterval with an exec of
// tail, until ctx ends, and returns how many bytes it delivered. Failures
// (no transcript yet, a fork bomb holding every PID) just skip a tick.
func poll(ctx context.Context, d Docker, id string, s Spec) int64 {
	var off int64
	t := time.NewTicker(s.PollInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return off
		case <-t.C:
		}
		chunk := readFrom(ctx, d, id, s, off)
		if len(chunk) > 0 && ctx.Err() == nil {
			off += int64(len(chunk))
			s.OnTranscript(chunk)
		}
	}
}

// readFrom reads the transcript from byte off on. What the exec printed
// counts only after pollMark, the script's first line: an exec that could
// not start (the container stopping as the command ends) gets the
// daemon's error message on its output instead, which is no transcript.
func readFrom(ctx context.Context, d Docker, id string, s Spec, off int64) []byte {
	ctx, cancel := context.WithTimeout(ctx, pollTimeout)
	defer cancel()
	script := "exec 2>/dev/null; echo " + pollMark + "; tail -c +" + strconv.FormatInt(off+1, 10) + " " + shell.Quote(s.TranscriptPath) +
		" | head -c " + strconv.Itoa(pollChunk)
	out, _ := execOutput(ctx, d, id, s.User, []string{"/bin/sh", "-c", script})
	chunk, ok := bytes.CutPrefix(out, []byte(pollMark+"\n"))
	if !ok {
		return nil
	}
	return chunk
}

// pollMark starts what a poll's exec prints.
const pollMark = "readme2demo-poll"

// remove force-removes a container and its anonymous volumes on a fresh
// context; a container that is already gone counts as removed.
func remove(d Docker, id string) error {
	_, err := removeOnce(d, id, removeTimeout)
	return err
}

// removeOnce is remove with a timeout, and whether the call gave up.
func removeOnce(d Docker, id string, timeout time.Duration) (timedOut bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err = d.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !isGone(err) {
		// The call's own deadline, whether or not the context's timer has
		// fired yet when the call returns (under load it may not have).
		gaveUp := ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)
		return gaveUp, fmt.Errorf("remove container %.12s: %w", id, err)
	}
	return false, nil
}

// removeWaiting removes the run's container even when that takes the
// daemon longer than one call's removeTimeout (a layer of hundreds of
// thousands of files). A call that gives up may leave the daemon deleting
// (then this waits for the container to be gone) or may stop it (the
// files deleted so far stay deleted; then this asks again, each time with
// twice the time), up to removeWait in all. A cancelled run does not wait:
// its cleanup must end within the seconds a cancelled job gets.
func removeWaiting(ctx context.Context, d Docker, id string) error {
	timeout := removeTimeout
	timedOut, err := removeOnce(d, id, timeout)
	if !timedOut || ctx.Err() != nil {
		return err
	}
	deadline := time.Now().Add(removeWait)
	for time.Now().Before(deadline) {
		time.Sleep(removePoll)
		ictx, cancel := context.WithTimeout(context.Background(), pollTimeout)
		c, _, ierr := d.ContainerInspectWithRaw(ictx, id, false)
		cancel()
		switch {
		case isNotFound(ierr):
			return nil
		case ierr == nil && c.State != nil && c.State.Status == "removing":
			continue // the daemon is still deleting it
		}
		timeout = max(min(2*timeout, time.Until(deadline)), removePoll)
		if timedOut, err = removeOnce(d, id, timeout); err != nil && !timedOut {
			return err
		}
		// A call that succeeded may only have found the removal under way
		// (409 counts as gone in removeOnce): gone is what inspect says.
	}
	if err == nil {
		err = errors.New("still being removed")
	}
	return fmt.Errorf("remove container %.12s: still there after %s: %w", id, removeWait, err)
}

func envList(env map[string]string) []string {
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - t.max; over > 0 {
		t.buf = append(t.buf[:0:0], t.buf[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) Bytes() []byte {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]byte(nil), t.buf...)
}
