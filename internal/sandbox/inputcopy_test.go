package sandbox

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

// inputCopyImage makes d's container one of an image that promises the
// copy-in on standard input.
func inputCopyImage(d *fakeDocker, value string) {
	d.inspect = func(string, bool) (container.InspectResponse, error) {
		r := inspected(100, false, false)
		r.Config = &container.Config{Labels: map[string]string{LabelInputCopy: value, LabelManaged: "true"}}
		return r, nil
	}
}

// inputRepo is a small repository: a script, a file in a directory, a
// symlink and a group-writable file.
func inputRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	assert.NilError(t, os.Chmod(dir, 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "run.sh"), []byte("#!/bin/sh\necho hi\n"), 0o755))
	assert.NilError(t, os.Mkdir(filepath.Join(dir, "docs"), 0o750))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte("# a\n"), 0o600))
	assert.NilError(t, os.Symlink("docs/a.md", filepath.Join(dir, "link")))
	// Group-writable: a mode a umask would take away.
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "shared.txt"), nil, 0o600))
	assert.NilError(t, os.Chmod(filepath.Join(dir, "shared.txt"), 0o664))
	return dir
}

// tarEntries lists an archive's entries as "name mode type [-> link]".
func tarEntries(t *testing.T, r io.Reader) []string {
	t.Helper()
	var got []string
	tr := tar.NewReader(r)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		assert.NilError(t, err)
		e := hdr.Name + " " + os.FileMode(hdr.Mode).Perm().String() + " " + string(hdr.Typeflag)
		if hdr.Linkname != "" {
			e += " -> " + hdr.Linkname
		}
		got = append(got, e)
	}
}

// With an image that promises it, the repository and the files go on the
// command's standard input behind the environment, as one archive, and
// the daemon copies nothing in.
func TestRunTakesTheCopyInOnTheCommandsInput(t *testing.T) {
	d := happyDocker(t)
	inputCopyImage(d, InputCopyTar)
	s := fakeSpec()
	s.RepoDir = inputRepo(t)
	res, err := Run(context.Background(), d, s)
	assert.NilError(t, err)
	assert.Check(t, is.Equal(*res.ExitCode, 7))
	assert.Check(t, is.DeepEqual(d.mainCalls(), []string{"list", "create", "inspect", "attach", "wait", "start",
		"copy-from /readme2demo", "inspect", "remove c1"}))
	// The environment, its end, the copy-out's word, the word tar, the
	// archive.
	in := d.stdin.Bytes()
	head := regexp.MustCompile("^API_KEY=s3cret-value\x00\x00[0-9a-f]{32}\x00tar\x00").Find(in)
	assert.Assert(t, head != nil, "standard input starts %q", in[:min(len(in), 64)])
	assert.Check(t, is.DeepEqual(tarEntries(t, bytes.NewReader(in[len(head):])), []string{
		"workspace/ -rwxr-xr-x 5",
		"workspace/docs/ -rwxr-x--- 5",
		"workspace/docs/a.md -rw------- 0",
		"workspace/link -rwxrwxrwx 2 -> docs/a.md",
		"workspace/run.sh -rwxr-xr-x 0",
		"workspace/shared.txt -rw-rw-r-- 0",
		"readme2demo/prompt.md -rw-r--r-- 0",
	}))
	assert.Check(t, d.stdin.Closed(), "the command's input was not closed: it would wait for more")
}

// The copy-in goes on standard input only where everything it writes is
// the agent's to write, and the image promises tar.
func TestTakesInputCopyOnlyWhereTheImageAndTheSpecAllowIt(t *testing.T) {
	promised := map[string]string{LabelInputCopy: InputCopyTar}
	base := func() Spec {
		s := fakeSpec()
		s.RepoDir, s.Workdir, s.User = "/repo", DefaultWorkdir, DefaultUser
		return s
	}
	tests := []struct {
		name     string
		labels   map[string]string
		readonly bool
		change   func(*Spec)
		want     bool
	}{
		{name: "promised", labels: promised, want: true},
		{name: "a workdir under the agent's home", labels: promised, change: func(s *Spec) { s.Workdir = "/home/agent/src" }, want: true},
		{name: "no repository, a workdir elsewhere", labels: promised, change: func(s *Spec) { s.RepoDir, s.Workdir = "", "/srv" }, want: true},
		{name: "no label", labels: nil},
		{name: "another value", labels: map[string]string{LabelInputCopy: "zstd"}},
		{name: "read-only root", labels: promised, readonly: true},
		{name: "another user", labels: promised, change: func(s *Spec) { s.User = "0:0" }},
		{name: "a user by name", labels: promised, change: func(s *Spec) { s.User = "agent" }},
		{name: "a workdir the agent does not own", labels: promised, change: func(s *Spec) { s.Workdir = "/srv" }},
		{name: "a workdir beside the workspace", labels: promised, change: func(s *Spec) { s.Workdir = "/workspace2" }},
		{name: "a file elsewhere", labels: promised, change: func(s *Spec) { s.Files = append(s.Files, File{Path: "/etc/x"}) }},
		{name: "a file that climbs out", labels: promised, change: func(s *Spec) { s.Files = append(s.Files, File{Path: "/workspace/../etc/x"}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := base()
			if tt.change != nil {
				tt.change(&s)
			}
			assert.Check(t, is.Equal(takesInputCopy(s, tt.labels, tt.readonly), tt.want))
		})
	}
}

// A command whose tar could not take the copy-in ends the run with an
// error that says what tar said; the same status without the mark is the
// command's own.
func TestRunReportsACopyInTheCommandsTarRefused(t *testing.T) {
	tests := []struct {
		name    string
		output  string
		status  int64
		labeled bool
		wantErr string
	}{
		{name: "refused", output: "tar: workspace/x: Cannot open: Permission denied\ntar: Exiting with failure status due to previous errors\n" + inputCopyMark + "\n",
			status: inputCopyStatus, labeled: true,
			wantErr: `copy repository and files into container: the container's tar failed: "tar: workspace/x: Cannot open: Permission denied\ntar: Exiting with failure status due to previous errors"`},
		{name: "the status alone", output: "bye\n", status: inputCopyStatus, labeled: true},
		{name: "the mark without the copy on input", output: inputCopyMark + "\n", status: inputCopyStatus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := happyDocker(t)
			if tt.labeled {
				inputCopyImage(d, InputCopyTar)
			}
			d.attach = func(string) (types.HijackedResponse, error) { return d.attachOf(tt.output, nil), nil }
			d.wait = func(string) (container.WaitResponse, error) {
				return container.WaitResponse{StatusCode: tt.status}, nil
			}
			res, err := Run(context.Background(), d, fakeSpec())
			if tt.wantErr != "" {
				assert.Error(t, err, tt.wantErr)
				assert.Check(t, !slices.Contains(d.mainCalls(), "copy-from /readme2demo"), "copied out after a failed copy-in")
			} else {
				assert.NilError(t, err)
			}
			assert.Check(t, is.Equal(*res.ExitCode, int(tt.status)))
			assert.Check(t, is.Equal(d.mainCalls()[len(d.mainCalls())-1], "remove c1"))
		})
	}
}

// An archive the run cannot make (the repository is gone) ends the run
// before the command starts: the input is never closed as if complete.
func TestRunStopsWhenTheInputCopysArchiveFails(t *testing.T) {
	d := happyDocker(t)
	inputCopyImage(d, InputCopyTar)
	s := fakeSpec()
	s.RepoDir = filepath.Join(t.TempDir(), "gone")
	_, err := Run(context.Background(), d, s)
	assert.ErrorContains(t, err, "copy repository and files into container: ")
	assert.Check(t, !d.stdin.Closed(), "the input was closed as if the copy were complete")
	assert.Check(t, is.Equal(d.mainCalls()[len(d.mainCalls())-1], "remove c1"))
}

// inputScript, run by a real bash and GNU tar: the environment exported
// exactly, the archive behind it extracted with its modes (at a temporary
// directory: the script's "-C /" is the one thing changed), and the
// command's input /dev/null after; an archive tar refuses ends the script
// with inputCopyStatus and the mark, before the command.
func TestInputScriptExtractsTheCopyBehindTheEnvironment(t *testing.T) {
	for _, tool := range []string{"bash", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is needed: %v", tool, err)
		}
	}
	root := t.TempDir()
	// As the container's tar runs: not as root (root's tar keeps modes
	// without being asked). The tests run as root in CI: as uid 1000 then.
	asAgent := func(cmd *exec.Cmd) {}
	if os.Getuid() == 0 {
		assert.NilError(t, os.Chmod(filepath.Dir(root), 0o755))
		assert.NilError(t, os.Chown(root, 1000, 1000))
		asAgent = func(cmd *exec.Cmd) {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 1000, Gid: 1000}}
		}
	}
	script := strings.Replace(inputScript, " -C / ", " -C "+root+" ", 1)
	assert.Assert(t, script != inputScript, "the script no longer extracts at /")
	command := `printf '%s|' "$A" "$B"; [ "$(stat -L -c %t:%T /dev/stdin)" = "$(stat -L -c %t:%T /dev/null)" ] && echo stdin-null`

	s := Spec{RepoDir: inputRepo(t), Workdir: "/workspace", User: DefaultUser, Now: fakeSpec().Now,
		Files: []File{{Path: "/readme2demo/prompt.md", Data: []byte("p")}}}
	out, finish, err := oneArchive(s, filesByPath(s), 1000, 1000)
	assert.NilError(t, err)
	var in bytes.Buffer
	in.Write(envInput(map[string]string{"A": "one\ntwo", "B": "$x 'q'"}))
	in.WriteString("\x00word\x00tar\x00")
	_, err = io.Copy(&in, out)
	assert.NilError(t, err)
	_, err = finish()
	assert.NilError(t, err)

	cmd := exec.Command("bash", "-c", "umask 022; "+script+command)
	cmd.Stdin = &in
	asAgent(cmd)
	got, err := cmd.CombinedOutput()
	assert.NilError(t, err, "%s", got)
	assert.Check(t, is.Equal(string(got), "one\ntwo|$x 'q'|stdin-null\n"))
	for name, mode := range map[string]os.FileMode{"workspace/run.sh": 0o755, "workspace/docs": os.ModeDir | 0o750, "workspace/docs/a.md": 0o600, "workspace/shared.txt": 0o664, "readme2demo/prompt.md": 0o644} {
		st, err := os.Lstat(filepath.Join(root, name))
		if assert.Check(t, err) {
			assert.Check(t, is.Equal(st.Mode(), mode), name)
		}
	}
	link, err := os.Readlink(filepath.Join(root, "workspace", "link"))
	assert.Check(t, err)
	assert.Check(t, is.Equal(link, "docs/a.md"))

	cmd = exec.Command("bash", "-c", script+"echo the command ran")
	cmd.Stdin = strings.NewReader("A=1\x00\x00word\x00tar\x00this is no archive")
	got, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	assert.Assert(t, errors.As(err, &exit), "%v: %s", err, got)
	assert.Check(t, is.Equal(exit.ExitCode(), inputCopyStatus))
	assert.Check(t, is.Contains(string(got), inputCopyMark))
	assert.Check(t, !strings.Contains(string(got), "the command ran"))
}
