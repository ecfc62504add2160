package runner

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/jsonv"
)

// run renders p, runs it with the host's bash in a temporary workspace
// and returns the transcript's lines.
func run(t *testing.T, p Plan) []string {
	t.Helper()
	dir := t.TempDir()
	ws := filepath.Join(dir, "workspace")
	assert.NilError(t, os.Mkdir(ws, 0o755))
	transcript, script := filepath.Join(dir, "transcript.jsonl"), filepath.Join(dir, "runner.sh")
	assert.NilError(t, os.WriteFile(script, Render(p, Paths{Transcript: transcript, Workspace: ws}), 0o644))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := append(append([]string{}, pidNamespace()...), "bash", script)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LC_ALL=C"}
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	assert.Assert(t, err == nil || (errorsAs(err, &ee) && ctx.Err() == nil), "run runner: %v\n%s", err, out)
	b, err := os.ReadFile(transcript)
	assert.NilError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// pidNamespace is how run starts the runner where the host allows it
// (root): in a PID namespace of its own with its own /proc, as in the
// sandbox's container, so that the runner's look at /proc around every
// command sees its own processes, not the whole machine's.
var pidNamespace = sync.OnceValue(func() []string {
	p := []string{"unshare", "--pid", "--fork", "--kill-child", "--mount-proc"}
	if exec.Command(p[0], append(p[1:], "true")...).Run() != nil {
		return nil
	}
	return p
})

func errorsAs(err error, ee **exec.ExitError) bool {
	e, ok := err.(*exec.ExitError)
	*ee = e
	return ok
}

// typeOf is the Go type of each record type the runner writes.
var typeOf = map[Type]reflect.Type{
	TypePlan: reflect.TypeFor[PlanRecord](), TypeNote: reflect.TypeFor[Note](), TypeSkip: reflect.TypeFor[Skip](),
	TypeInstall: reflect.TypeFor[Install](), TypeStart: reflect.TypeFor[Start](), TypeSetupStart: reflect.TypeFor[SetupStart](),
	TypeEnd: reflect.TypeFor[End](), TypeBackgroundOutput: reflect.TypeFor[BackgroundOutput](), TypeStop: reflect.TypeFor[Stop](),
	TypeSummary: reflect.TypeFor[Summary](), TypeError: reflect.TypeFor[Error](),
}

// jsonKeys lists the json keys of a struct type; required ones are those
// without omitempty.
func jsonKeys(t reflect.Type) (all, required []string) {
	for _, f := range reflect.VisibleFields(t) {
		tag, ok := f.Tag.Lookup("json")
		if !ok {
			continue
		}
		key, opts, _ := strings.Cut(tag, ",")
		all = append(all, key)
		if !strings.Contains(opts, "omitempty") {
			required = append(required, key)
		}
	}
	return all, required
}

// The protocol between the real runner.sh and the Go parser: every record
// the runner writes is exactly one of the Go record types (no field more,
// none missing but those left out when empty), the tolerant decoder reads
// it as encoding/json does, every key runner.sh reads of a step is a field
// of stepVars, and the runner stops exactly after the command the Go
// verdict names.
func TestRecordsRoundTrip(t *testing.T) {
	exit3 := 3
	p := Plan{
		Engine: "markdown", Origin: "README.md",
		Notes:    []Note{{Line: 1, Text: "hint not understood"}},
		Skipped:  []Skip{{File: "README.md", Line: 2, Command: "brew install x", Reason: "other platform: Homebrew"}},
		Installs: []Install{{Tool: "x", Line: 2, Command: "brew install x", Skipped: "other platform: Homebrew"}},
		Steps: []Step{
			{Command: "mkdir -p sub && echo made", File: "README.md", Line: 4, Timeout: time.Minute, Setup: "touch set-up", SetupLine: 3},
			{Command: "printf 'a\\nb\\nc\\n'", File: "README.md", Line: 5, Timeout: time.Minute, Expect: []string{"a", "...", "c"}, ExpectLine: 6, Cwd: "sub", LeaveCwd: true},
			{Command: "exit_three() { return 3; }; exit_three", File: "README.md", Line: 9, Timeout: time.Minute, ExpectExit: &exit3},
			{Command: "false", File: "README.md", Line: 10, Timeout: time.Minute, AllowFailure: true},
			{Command: "echo serving", File: "README.md", Line: 11, Timeout: 10 * time.Second, Background: true, Ready: "true"},
			{Command: "echo other", File: "README.md", Line: 12, Timeout: time.Minute, Expect: []string{"expected"}, ExpectLine: 13},
			{Command: "echo never", File: "README.md", Line: 14, Timeout: time.Minute},
		},
	}
	lines := run(t, p)
	seen := map[Type]int{}
	for _, line := range lines {
		var head struct{ Type Type }
		assert.NilError(t, json.Unmarshal([]byte(line), &head), line)
		rt, ok := typeOf[head.Type]
		assert.Assert(t, ok, "a record of no Go type: %s", line)
		seen[head.Type]++

		strict := reflect.New(rt)
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		assert.NilError(t, dec.Decode(strict.Interface()), "the runner wrote a field %s lacks: %s", rt.Name(), line)
		var keys map[string]json.RawMessage
		assert.NilError(t, json.Unmarshal([]byte(line), &keys))
		_, required := jsonKeys(rt)
		for _, k := range required {
			_, ok := keys[k]
			assert.Assert(t, ok, "%s lacks %q: %s", rt.Name(), k, line)
		}

		r := jsonv.NewReader(strings.NewReader(line), jsonv.Options{})
		v, err := r.Next()
		assert.NilError(t, err)
		tolerant, ok := decode(v)
		r.Close()
		assert.Assert(t, ok, line)
		got := reflect.ValueOf(tolerant).Elem()
		if got.Type() != rt { // runner 1's wider types embed runner 2's
			got = got.Field(0)
		}
		assert.DeepEqual(t, got.Interface(), strict.Elem().Interface())
	}
	assert.DeepEqual(t, seen, map[Type]int{TypePlan: 1, TypeNote: 1, TypeSkip: 1, TypeInstall: 1, TypeSetupStart: 1,
		TypeStart: 6, TypeEnd: 7, TypeBackgroundOutput: 1, TypeStop: 1, TypeSummary: 1})

	// Go's verdict names the command after which the runner stopped.
	var lg fakeLog
	parser := NewParser(&lg, Options{Hints: true})
	for _, line := range lines {
		r := jsonv.NewReader(strings.NewReader(line), jsonv.Options{})
		v, err := r.Next()
		assert.NilError(t, err)
		parser.Record(v)
		r.Close()
	}
	for i := range lg.commands {
		parser.Sealed(&lg.commands[i])
	}
	verdict := parser.Verdict()
	assert.Equal(t, verdict.Failure.Kind, KindOutput)
	assert.Equal(t, verdict.Failure.Where, "README.md line 12")
	assert.Equal(t, lines[len(lines)-3], `{"type":"stop","id":"6"}`)
	assert.Equal(t, verdict.NotReached, 1)
}

// Every key runner.sh reads of __r2d_step is a field of stepVars, and
// every field is read.
func TestStepVarsAreWhatTheRunnerReads(t *testing.T) {
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`__r2d_step\[(\w+)\]`).FindAllStringSubmatch(script, -1) {
		read[m[1]] = true
	}
	// The generated code evaluates exec.
	read["exec"] = true
	var tags []string
	for _, f := range reflect.VisibleFields(reflect.TypeFor[stepVars]()) {
		tags = append(tags, f.Tag.Get("sh"))
	}
	var keys []string
	for k := range read {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	slices.Sort(tags)
	assert.DeepEqual(t, keys, tags)
}

// fakeLog keeps the commands a parser opens, as the engines' log builder
// does (without truncation).
type fakeLog struct {
	commands []commandlog.Command
	unknown  int
}

func (l *fakeLog) Unknown() { l.unknown++ }
func (l *fakeLog) Has(id string) bool {
	return slices.ContainsFunc(l.commands, func(c commandlog.Command) bool { return c.ID == id })
}
func (l *fakeLog) Command(c commandlog.Command) {
	c.Status = commandlog.StatusUnknown
	l.commands = append(l.commands, c)
}
func (l *fakeLog) Result(id string, r Result) bool {
	for i := range l.commands {
		if c := &l.commands[i]; c.ID == id {
			c.Output, c.ExitCode = r.Output, r.ExitCode
			switch {
			case r.ExitCode != nil && *r.ExitCode == 0 && !r.Failed:
				c.Status = commandlog.StatusOK
			case r.ExitCode != nil || r.Failed:
				c.Status = commandlog.StatusFailed
			}
			return true
		}
	}
	return false
}
func (l *fakeLog) Output(id, output string, omitted int64) bool { return l.Has(id) }
func (l *fakeLog) Skipped(commandlog.Skipped)                   {}
func (l *fakeLog) Runner(string)                                {}
func (l *fakeLog) Totals(*int64, *float64)                      {}
