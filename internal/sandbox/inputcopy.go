package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strconv"
	"time"
)

// The copy-in on the command's standard input. The command waits there for
// its environment anyway (inputScript); where the image promises GNU tar
// and the agent's ownership of every place the copy writes
// (LabelInputCopy), the repository and the run's files follow the
// environment on the same stream and the command's own tar extracts them,
// as the agent user, inside the container. That spares the daemon's
// archive call (a helper process on the host: about 50 ms of a keyless
// run), and the host no longer extracts an archive of the repository under
// test at all. Elsewhere (the strict profile's read-only root, another
// user, an image without the label) the daemon copies as before (copyIn).

// inputCopyStatus is the exit status of the command's script when its tar
// could not take the copy-in, after it wrote inputCopyMark to its standard
// error.
const (
	inputCopyStatus = 218
	inputCopyMark   = "readme2demo: the copy-in on standard input could not be extracted"
)

// inputScript, first in the command's script, reads Env from the
// command's standard input (NAME=value pairs, each ended by a NUL) until an
// empty record; then the word of the copy-out's mark (outputcopy.go;
// NUL-ended, kept unexported in __r2d_n; empty for none); then, when the
// word "tar" (NUL-ended) follows, extracts the archive behind it at "/"
// (modes kept: -p); then gives the command /dev/null there, as an exec's
// was. Env never enters the container's configuration.
var inputScript = "while IFS= read -r -d '' __r2d_kv && [ -n \"$__r2d_kv\" ]; do export \"$__r2d_kv\"; done; " +
	"IFS= read -r -d '' __r2d_n; IFS= read -r -d '' __r2d_kv; if [ \"$__r2d_kv\" = tar ]; then " +
	"tar -x -p -f - -C / --warning=no-timestamp || { echo '" + inputCopyMark + "' >&2; exit " + strconv.Itoa(inputCopyStatus) + "; }; " +
	"fi; unset __r2d_kv; exec </dev/null\n"

// input is what the command reads first: Env, an empty record, and the
// copy-out's word (empty: no copy-out on the output).
func (c *started) input(env map[string]string) []byte {
	return append(append(append(envInput(env), 0), c.word...), 0)
}

// envInput is Env as inputScript reads it.
func envInput(env map[string]string) []byte {
	var b []byte
	for _, kv := range envList(env) {
		b = append(append(b, kv...), 0)
	}
	return b
}

// takesInputCopy says whether the copy-in goes on the command's standard
// input: the container's image promises it (labels: the container's,
// which hold its image's), the root file system is writable (the strict
// profile's copies go to its volumes, one each), the command runs as the
// agent user, and everything the copy writes is under a directory the
// agent owns.
func takesInputCopy(s Spec, labels map[string]string, readonlyRoot bool) bool {
	if !promisesTar(labels) || readonlyRoot || s.User != DefaultUser {
		return false
	}
	if s.RepoDir != "" && !s.underWritable(path.Clean(s.Workdir)) {
		return false
	}
	for p := range filesByPath(s) {
		if !s.underWritable(path.Dir(p)) {
			return false
		}
	}
	return true
}

// releaseWithCopy is release with the copy-in behind the environment: the
// repository and the files as one archive (oneArchive), which the
// command's tar extracts before the command starts. The write ends by the
// run's deadline, or when ctx ends. A write the command stopped taking (its
// tar failed: inputCopyFailure says why once it has exited) is not an
// error here; an archive that could not be made, or ctx's end, is.
func (c *started) releaseWithCopy(ctx context.Context, s Spec, res *Result, deadline time.Time) error {
	uid, gid := owner(s.User)
	out, finish, err := oneArchive(s, filesByPath(s), uid, gid)
	if err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() { _ = c.att.Conn.Close() })
	_ = c.att.Conn.SetWriteDeadline(deadline)
	_, werr := c.att.Conn.Write(append(c.input(s.Env), "tar\x00"...))
	if werr == nil {
		_, _ = io.Copy(c.att.Conn, out)
	}
	out.CloseWithError(errCopyAborted)
	findings, archErr := finish()
	res.RepoConfig = findings
	stop()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("run agent: %w", context.Cause(ctx))
	case archErr != nil:
		return fmt.Errorf("copy repository and files into container: %w", archErr)
	}
	_ = c.att.CloseWrite()
	return nil
}

// inputCopyFailure is the error of a command whose tar could not take the
// copy-in (its script's exit status and mark), with what tar said last;
// nil for any other end.
func inputCopyFailure(res *Result) error {
	if res.ExitCode == nil || *res.ExitCode != inputCopyStatus {
		return nil
	}
	i := bytes.LastIndex(res.Output, []byte(inputCopyMark))
	if i < 0 {
		return nil
	}
	said := bytes.TrimSpace(res.Output[:i])
	if len(said) > 512 {
		said = said[len(said)-512:]
	}
	return fmt.Errorf("copy repository and files into container: the container's tar failed: %q", said)
}
