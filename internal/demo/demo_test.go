package demo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"

	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/termtext"
	"github.com/readme2demo/readme2demo/internal/termtext/termtexttest"
)

func loadLog(t *testing.T, path string) *commandlog.Log {
	t.Helper()
	f, err := os.Open(path)
	assert.NilError(t, err)
	defer f.Close()
	l, err := commandlog.Decode(f)
	assert.NilError(t, err)
	return l
}

// goldenLogs are command logs the engines produce, kept as golden files.
func goldenLogs(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"markdown", "replay", "claude-code"} {
		paths, err := filepath.Glob(filepath.Join("..", "..", "testdata", "golden", dir, "*.json"))
		assert.NilError(t, err)
		out = append(out, paths...)
	}
	assert.Assert(t, len(out) >= 5, "want engine golden logs to render, got %d", len(out))
	return out
}

// castEvent is one parsed asciicast event.
type castEvent struct {
	t    float64
	data string
}

// parseCast reads a cast back the way a player does, and checks the format.
func parseCast(t *testing.T, cast []byte) (map[string]any, []castEvent) {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(cast))
	sc.Buffer(nil, 1<<24)
	assert.Assert(t, sc.Scan(), "no header")
	var header map[string]any
	assert.NilError(t, json.Unmarshal(sc.Bytes(), &header))
	assert.Equal(t, header["version"], 2.0)
	assert.Assert(t, header["width"].(float64) > 0)
	assert.Assert(t, header["height"].(float64) > 0)
	assert.Assert(t, header["title"].(string) != "")
	var events []castEvent
	last := -1.0
	for sc.Scan() {
		var ev []any
		assert.NilError(t, json.Unmarshal(sc.Bytes(), &ev), "event %s", sc.Text())
		assert.Equal(t, len(ev), 3)
		tm, ok := ev[0].(float64)
		assert.Assert(t, ok, "time is a number: %v", ev[0])
		assert.Equal(t, ev[1], "o")
		data, ok := ev[2].(string)
		assert.Assert(t, ok)
		assert.Assert(t, tm >= last, "times decrease: %f after %f", tm, last)
		last = tm
		events = append(events, castEvent{tm, data})
	}
	assert.NilError(t, sc.Err())
	return header, events
}

var sgrRe = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// screen is the text a viewer sees: colours removed, prompts and line ends
// normalised.
func screen(events []castEvent) string {
	var b strings.Builder
	for _, e := range events {
		b.WriteString(e.data)
	}
	s := sgrRe.ReplaceAllString(b.String(), "")
	s = strings.ReplaceAll(s, "\r\n> ", "\n")
	return strings.ReplaceAll(s, "\r\n", "\n")
}

func TestCastParsesBack(t *testing.T) {
	for _, path := range goldenLogs(t) {
		t.Run(filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), func(t *testing.T) {
			l := loadLog(t, path)
			var buf bytes.Buffer
			assert.NilError(t, Cast(&buf, l, Options{}))
			header, events := parseCast(t, buf.Bytes())
			assert.Equal(t, header["title"], "readme2demo: "+l.Engine+" ("+string(l.Outcome)+")")
			assert.Equal(t, header["width"], float64(DefaultWidth))
			_, hasTS := header["timestamp"]
			assert.Assert(t, !hasTS, "no timestamp unless asked")
			sc := screen(events)
			// Every command is there, typed after a prompt, in order.
			pos := 0
			for _, c := range l.Commands {
				i := strings.Index(sc[pos:], "$ "+strings.ReplaceAll(c.Command, "\r\n", "\n"))
				assert.Assert(t, i >= 0, "command %q missing from the cast after offset %d", c.Command, pos)
				pos += i
			}
			assert.Assert(t, strings.Contains(sc, "# readme2demo: "+string(l.Outcome)))
		})
	}
}

func TestCastPacing(t *testing.T) {
	ms := func(n int64) *int64 { return &n }
	zero, two := 0, 2
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeFailed, Commands: []commandlog.Command{
		{ID: "1", Command: "make", Output: "built\n", ExitCode: &zero, Status: commandlog.StatusOK, DurationMS: ms(1000)},
		{ID: "2", Command: "npm install", Output: "added 1 package\n", ExitCode: &zero, Status: commandlog.StatusOK, DurationMS: ms(600000)},
		{ID: "3", Command: "ls", Output: "a\n", ExitCode: &zero, Status: commandlog.StatusOK},
		{ID: "4", Command: "make test", Output: "FAIL\n", ExitCode: &two, Status: commandlog.StatusFailed},
		{ID: "5", Command: "npm start", Status: commandlog.StatusUnknown},
	}}
	var buf bytes.Buffer
	assert.NilError(t, Cast(&buf, l, Options{Title: "my demo", Width: 80, Height: 24, Timestamp: time.Unix(1700000000, 0)}))
	header, events := parseCast(t, buf.Bytes())
	assert.Equal(t, header["title"], "my demo")
	assert.Equal(t, header["width"], 80.0)
	assert.Equal(t, header["timestamp"], 1700000000.0)
	// The gap between Enter and the output is the recorded duration, capped.
	gap := func(output string) float64 {
		for i, e := range events {
			if e.data == output {
				for j := i - 1; j >= 0; j-- {
					if e2 := events[j]; e2.data == "\r\n" {
						return e.t - e2.t
					}
				}
			}
		}
		t.Fatalf("output %q not found", output)
		return 0
	}
	assert.Assert(t, abs(gap("built\r\n")-1.0) < 0.01, "1 s command: %f", gap("built\r\n"))
	assert.Assert(t, abs(gap("added 1 package\r\n")-MaxPause.Seconds()) < 0.01, "10 min command capped: %f", gap("added 1 package\r\n"))
	assert.Assert(t, abs(gap("a\r\n")-DefaultOutput.Seconds()) < 0.01, "unknown duration: %f", gap("a\r\n"))
	sc := screen(events)
	assert.Assert(t, strings.Contains(sc, "FAIL\n[exit 2]\n"), sc)
	assert.Assert(t, strings.Contains(sc, "$ npm start\n[readme2demo: no result: the command did not finish]"), sc)
	total := events[len(events)-1].t
	assert.Assert(t, total < 30, "a demo of five commands stays short: %f s", total)
}

func abs(f float64) float64 {
	if f < 0 {
		return -f
	}
	return f
}

func TestCastGolden(t *testing.T) {
	l := loadLog(t, filepath.Join("..", "..", "testdata", "golden", "markdown", "quickstart-success.json"))
	var buf bytes.Buffer
	assert.NilError(t, Cast(&buf, l, Options{}))
	golden.Assert(t, buf.String(), "quickstart-success.cast")
}

// Every hidden, bidi, tag, separator and conceal character, C1 control,
// OSC/DCS sequence and huge CSI parameter in the log is shown visibly in
// demo.cast (the typed commands, the output as a terminal shows it, the
// title and the closing line) and in demo.sh (comments; the commands that
// ran, as $'…' strings of the same bytes): the oracle finds none raw in
// either, and the goldens show each one.
func TestHostileText(t *testing.T) {
	l := termtexttest.Log()
	var cast, script bytes.Buffer
	o := Options{Title: "demo \u202e\x1b]0;t\x07", Source: "command_log\u2066.json"}
	assert.NilError(t, Cast(&cast, l, o))
	assert.NilError(t, Script(&script, l, o))
	header, events := parseCast(t, cast.Bytes())
	for _, p := range termtexttest.Problems(header["title"].(string), termtexttest.Text) {
		t.Errorf("cast title: %s", p)
	}
	for _, e := range events {
		for _, p := range termtexttest.Problems(e.data, termtexttest.Terminal) {
			t.Errorf("cast event at %.3f s: %s", e.t, p)
		}
	}
	for _, p := range termtexttest.Problems(script.String(), termtexttest.Text) {
		t.Errorf("demo.sh: %s", p)
	}
	golden.Assert(t, cast.String(), "hostile-text.cast")
	golden.Assert(t, script.String(), "hostile-text.sh")
}

func TestScriptIsTheSuccessfulPath(t *testing.T) {
	l := loadLog(t, filepath.Join("..", "..", "testdata", "golden", "claude-code", "edge-mixed-2.1.json"))
	var buf bytes.Buffer
	assert.NilError(t, Script(&buf, l, Options{Source: "artifacts/command_log.json"}))
	s := buf.String()
	assert.Assert(t, strings.HasPrefix(s, "#!/usr/bin/env bash\n# demo.sh: generated by readme2demo from artifacts/command_log.json\n"), s)
	assert.Assert(t, strings.Contains(s, "\nset -e\n"))
	var want []string
	for _, c := range l.Commands {
		if c.Status == commandlog.StatusOK {
			want = append(want, c.Command)
		} else {
			assert.Assert(t, !strings.Contains(s, "\n"+c.Command+"\n"), "a %s command is left out: %q", c.Status, c.Command)
		}
	}
	assert.Assert(t, len(want) > 0 && len(want) < len(l.Commands), "the fixture mixes ok and failed commands")
	pos := 0
	for _, c := range want {
		i := strings.Index(s[pos:], "\n"+c+"\n")
		assert.Assert(t, i >= 0, "command %q missing or out of order", c)
		pos += i + 1
	}
	out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput()
	assert.NilError(t, err, "demo.sh is valid bash: %s", out)
}

// TestScriptRuns runs the demo.sh of a markdown run with bash, in a fresh
// directory as a user would; the sandbox run is in the pipeline tests.
func TestScriptRuns(t *testing.T) {
	l := loadLog(t, filepath.Join("..", "..", "testdata", "golden", "markdown", "quickstart-success.json"))
	dir := t.TempDir()
	_, script, err := WriteFiles(filepath.Join(dir, "out"), l, Options{})
	assert.NilError(t, err)
	fi, err := os.Stat(script)
	assert.NilError(t, err)
	assert.Assert(t, fi.Mode()&0o100 != 0, "demo.sh is executable")
	ws := filepath.Join(dir, "ws")
	assert.NilError(t, os.Mkdir(ws, 0o755))
	cmd := exec.Command(script)
	cmd.Dir = ws
	out, err := cmd.CombinedOutput()
	assert.NilError(t, err, string(out))
	assert.Equal(t, string(out), "hello demo from app\n2\n")
	body, err := os.ReadFile(script)
	assert.NilError(t, err)
	assert.Assert(t, strings.Contains(string(body), "# README.md line 4\nmkdir -p app && cd app\n"), string(body))
}

func TestSecretsStayRedacted(t *testing.T) {
	const apiKey = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD"
	const custom = "hunter2-custom-secret-value"
	zero := 0
	l := &commandlog.Log{Engine: "claude-code", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "export ANTHROPIC_API_KEY=" + apiKey, ExitCode: &zero, Status: commandlog.StatusOK},
		{ID: "2", Command: "./login --password " + custom, Output: "logged in with " + custom + " and " + apiKey, ExitCode: &zero, Status: commandlog.StatusOK},
	}}
	var cast, script bytes.Buffer
	o := Options{Secrets: []string{custom}}
	assert.NilError(t, Cast(&cast, l, o))
	assert.NilError(t, Script(&script, l, o))
	for name, s := range map[string]string{"demo.cast": cast.String(), "demo.sh": script.String()} {
		assert.Assert(t, !strings.Contains(s, apiKey), "%s leaks the API key", name)
		assert.Assert(t, !strings.Contains(s, custom), "%s leaks the secret", name)
		assert.Assert(t, strings.Contains(s, "[REDACTED:"), "%s says what it redacted", name)
	}
	assert.Equal(t, l.Commands[1].Output, "logged in with "+custom+" and "+apiKey, "the caller's log is not modified")
}

// The demo works on a deep copy: the caller's log, README sources and
// pointers included, is never changed.
func TestDemoLeavesTheCallersLogAlone(t *testing.T) {
	const custom = "hunter2-Custom-Secret-9value"
	zero := 0
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "echo " + custom, Output: custom, ExitCode: &zero, Status: commandlog.StatusOK,
			Source: &commandlog.Source{File: "docs/" + custom + ".md", Line: 3}},
	}}
	before := commandlog.Clone(l)
	var cast, script bytes.Buffer
	assert.NilError(t, Cast(&cast, l, Options{Secrets: []string{custom}}))
	assert.NilError(t, Script(&script, l, Options{Secrets: []string{custom}}))
	assert.DeepEqual(t, l, before)
	assert.Assert(t, !strings.Contains(cast.String()+script.String(), custom))
}

// Hostile command text and output never reach the player's terminal as
// control sequences: the typed command is drawn visibly, output keeps only
// colours, and demo.sh writes such commands as eval $'…' after a comment
// that shows them, and leaves out commands redaction altered; README
// commands that need no change stay exactly as written.
func TestDemoIsTerminalSafe(t *testing.T) {
	zero := 0
	ok := func(cmd, out string) commandlog.Command {
		return commandlog.Command{ID: cmd, Command: cmd, Output: out, ExitCode: &zero, Status: commandlog.StatusOK}
	}
	l := &commandlog.Log{Engine: "markdown\x1b]0;title\x07", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		ok("printf 'x'", "clip \x1b]52;c;cHduZWQ=\nreset \x1bc\x1b[2J dcs \x1bP1$r\x1b\\ \u009b6n \x9b31m\nvisible\rhidden\n\x1b[32mgreen\x1b[0m\n"),
		ok("echo typed \x1b]0;t\x07 \u202e", "fine\n"),
		ok("echo gpgkey=https://packages.example.com/key.gpg", "gpgkey=https://packages.example.com/key.gpg\n"),
		ok("curl -H 'Authorization: Bearer [REDACTED:secret]' https://x", ""),
	}}
	var cast, script bytes.Buffer
	assert.NilError(t, Cast(&cast, l, Options{}))
	assert.NilError(t, Script(&script, l, Options{}))
	header, events := parseCast(t, cast.Bytes())
	assert.Check(t, !strings.ContainsAny(header["title"].(string), "\x1b\x07"))
	sgr := regexp.MustCompile(`\x1b\[[0-9;]*m`)
	for _, e := range events {
		rest := sgr.ReplaceAllString(e.data, "")
		rest = strings.ReplaceAll(rest, "\r\n", "")
		for _, c := range rest {
			assert.Check(t, c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f) && c != 0x202e, "control %U in cast event %q", c, e.data)
		}
	}
	scr := screen(events)
	assert.Check(t, strings.Contains(scr, "echo typed ^[]0;t^G ‹U+202E›"), scr)
	assert.Check(t, strings.Contains(scr, "hiddene"), "bare CR shown as a terminal would: %s", scr)
	assert.Check(t, strings.Contains(cast.String(), `\u001b[32mgreen\u001b[0m`), "colours kept")
	sh := script.String()
	for _, c := range sh {
		assert.Check(t, c == '\n' || c == '\t' || c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f) && c != 0x202e, "control %U in demo.sh", c)
	}
	assert.Check(t, strings.Contains(sh, "\necho gpgkey=https://packages.example.com/key.gpg\n"), sh)
	assert.Check(t, strings.Contains(sh, "#   echo typed ^[]0;t^G ‹U+202E›\neval $'echo typed \\x1b]0;t\\x07 \\xe2\\x80\\xae'\n"), sh)
	assert.Check(t, strings.Contains(sh, "# left out: redaction altered this command"), sh)
	assert.Check(t, !strings.Contains(sh, "\ncurl -H"), "a redacted command runs in demo.sh: %s", sh)
}

// demo.sh runs exactly the bytes that ran: commands holding hidden and
// control characters (in quotes, unquoted, in a heredoc) do the same under
// `bash demo.sh` as under `bash -c` with the recorded text, in the C locale
// and in a UTF-8 one.
func TestScriptRerunsTheSameBytes(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	zero := 0
	cmds := []string{
		"printf '%s\\n' 'quoted \u202eevil\u202c \u200b\u2060\ufeff \U000e0041' >> out",
		"printf '%s\\n' \"double \u2066\u2069 \u3164 $((1+1)) \x1b[8mconceal\x1b[0m\" >> out",
		"echo unquoted\u200btoken \u2028sep >> out",
		"cat >> out <<'EOF'\nheredoc \u202e\u2029 line\r\nEOF",
		"x=$'\\u202e'; printf '%s|%s\\n' \"$x\" 'it'\\''s' >> out",
	}
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess}
	for i, c := range cmds {
		l.Commands = append(l.Commands, commandlog.Command{ID: fmt.Sprint(i), Command: c, ExitCode: &zero, Status: commandlog.StatusOK})
	}
	var script bytes.Buffer
	assert.NilError(t, Script(&script, l, Options{}))
	for _, locale := range []string{"C", "C.UTF-8"} {
		env := append(os.Environ(), "LC_ALL="+locale)
		want, got := t.TempDir(), t.TempDir()
		for _, c := range cmds {
			cmd := exec.Command(bash, "-c", c)
			cmd.Dir, cmd.Env = want, env
			out, err := cmd.CombinedOutput()
			assert.NilError(t, err, "%s", out)
		}
		assert.NilError(t, os.WriteFile(filepath.Join(got, "demo.sh"), script.Bytes(), 0o755))
		cmd := exec.Command(bash, "demo.sh")
		cmd.Dir, cmd.Env = got, env
		out, err := cmd.CombinedOutput()
		assert.NilError(t, err, "%s\n%s", out, script.String())
		w, err := os.ReadFile(filepath.Join(want, "out"))
		assert.NilError(t, err)
		g, err := os.ReadFile(filepath.Join(got, "out"))
		assert.NilError(t, err)
		assert.Check(t, bytes.Equal(g, w), "LC_ALL=%s: demo.sh wrote %q, the commands %q", locale, g, w)
		assert.Check(t, bytes.Contains(w, []byte("\u202eevil")) && bytes.Contains(w, []byte("\U000e0041")), "%q", w)
	}
	for _, c := range script.String() {
		assert.Check(t, c == '\n' || c == '\t' || c >= 0x20 && c != 0x7f && !termtext.Hidden(c), "demo.sh holds %U", c)
	}
}

// TestScriptRunsWhatRan: where the keyless runner ran something else for a
// README command (the checkout linked where the README clones it), entered
// a cwd hint's directory, ran a setup hint's command or left a server
// running, demo.sh does the same, run from a fresh copy of the checkout
// with no network: the README's clone is shown, not run, and the server is
// waited for and stopped at the end.
func TestScriptRunsWhatRan(t *testing.T) {
	zero := 0
	bg := fmt.Sprintf("r2d-demo-bg-%d", os.Getpid())
	src := func(n int) *commandlog.Source { return &commandlog.Source{File: "README.md", Line: n} }
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "git clone https://github.com/demo-org/tool.git && cd tool", Source: src(3),
			Ran: `mkdir -p -- "$(dirname -- "tool")" && ln -sfn -- "$README2DEMO_CHECKOUT" "tool" && cd tool`},
		{ID: "2", Command: "ls marker", Source: src(4)},
		{ID: "3", Command: "cat app.toml", Source: src(8), Cwd: "conf", Setup: "echo hidden > made-by-setup"},
		{ID: "4", Command: "cat made-by-setup", Source: src(9), LeaveCwd: true},
		{ID: "5", Command: "cd tool/sub", Source: src(11), Ran: `cd -- "$README2DEMO_CHECKOUT"/sub`},
		{ID: "6", Command: "sleep 1; touch up; exec -a " + bg + " sleep 300", Source: src(14),
			Background: &commandlog.Background{Ready: "test -e up", TimeoutS: 20}},
		{ID: "7", Command: "ls up && pwd -P", Source: src(17)},
	}}
	for i := range l.Commands {
		l.Commands[i].ExitCode, l.Commands[i].Status = &zero, commandlog.StatusOK
	}
	var script bytes.Buffer
	assert.NilError(t, Script(&script, l, Options{}))
	s := script.String()
	assert.Assert(t, strings.Contains(s, "# the README's command, which ran as the line(s) below:\n#   git clone https://github.com/demo-org/tool.git && cd tool\nmkdir -p"), s)
	assert.Assert(t, !strings.Contains(s, "\ngit clone"), "the README's clone is not run: %s", s)
	assert.Equal(t, strings.Count(s, "\nREADME2DEMO_CHECKOUT=$PWD\n"), 1, s)
	sudo := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{
		{ID: "1", Command: "ls marker", Ran: "sudo ls marker", ExitCode: &zero, Status: commandlog.StatusOK}}}
	var other bytes.Buffer
	assert.NilError(t, Script(&other, sudo, Options{}))
	assert.Assert(t, !strings.Contains(other.String(), "README2DEMO_CHECKOUT="), "set only where a command uses it: %s", other.String())

	ws := t.TempDir()
	ws, err := filepath.EvalSymlinks(ws)
	assert.NilError(t, err)
	assert.NilError(t, os.MkdirAll(filepath.Join(ws, "conf"), 0o755))
	assert.NilError(t, os.MkdirAll(filepath.Join(ws, "sub"), 0o755))
	assert.NilError(t, os.WriteFile(filepath.Join(ws, "marker"), nil, 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(ws, "conf", "app.toml"), []byte("name = \"demo\"\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(ws, "demo.sh"), script.Bytes(), 0o755))
	cmd := exec.Command("bash", "demo.sh")
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	// Its own process group, ended with the test whatever the script left;
	// Wait returns soon after the script ends even when a process it left
	// holds the output pipe.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 2 * time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	timer := time.AfterFunc(30*time.Second, func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	err = cmd.Wait()
	assert.Assert(t, timer.Stop(), "demo.sh hung (a background command run in the foreground?): %s\n%s", buf.String(), s)
	out := buf.Bytes()
	assert.Check(t, err == nil || errors.Is(err, exec.ErrWaitDelay), "%v: %s\n%s", err, out, s)
	assert.Equal(t, string(out), "marker\nname = \"demo\"\nhidden\nup\n"+filepath.Join(ws, "sub")+"\n", s)
	// The server the script started is gone once it ended.
	assert.Equal(t, running(t, bg), 0, "the background command outlived demo.sh")
}

// running counts the processes whose command line holds name.
func running(t *testing.T, name string) int {
	t.Helper()
	cmdlines, err := filepath.Glob("/proc/[0-9]*/cmdline")
	assert.NilError(t, err)
	assert.Assert(t, len(cmdlines) > 0, "no /proc")
	n := 0
	for _, p := range cmdlines {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(name)) {
			n++
		}
	}
	return n
}

// An agent's server started with Claude Code's run_in_background (a real
// transcript of another project): its end never shows, so its status is
// unknown, and demo.sh still starts it, in the background, where the
// agent did: the commands after it talk to it.
func TestScriptStartsTheAgentsBackgroundServer(t *testing.T) {
	l := loadLog(t, filepath.Join("..", "..", "testdata", "golden", "corpus", "claude-code", "session-jsonl-spotter-tool_heavy-2.1.38.jsonl.json"))
	var bg []string
	for _, c := range l.Commands {
		if c.Background != nil {
			bg = append(bg, c.Command)
			assert.Equal(t, c.Status, commandlog.StatusUnknown)
		}
	}
	assert.DeepEqual(t, bg, []string{"mix phx.server"})
	var script bytes.Buffer
	assert.NilError(t, Script(&script, l, Options{}))
	s := script.String()
	assert.Assert(t, strings.Contains(s, "(\nmix phx.server\n) </dev/null &\n__demo_ready 0 # no readiness check: two seconds\n"), s)
	assert.Assert(t, strings.Contains(s, "left running in the background"), s)
	out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput()
	assert.NilError(t, err, "demo.sh is valid bash: %s", out)
}

// What ran, a setup hint's command, a cwd and a readiness check are
// written as a command is: never a hidden or control character in the
// script, which stays valid bash.
func TestScriptHowItRanIsTerminalSafe(t *testing.T) {
	zero := 0
	l := &commandlog.Log{Engine: "markdown", Outcome: commandlog.OutcomeSuccess, Commands: []commandlog.Command{{
		ID: "1", Command: "serve \u202eevil", ExitCode: &zero, Status: commandlog.StatusOK,
		Ran: "serve \u202e\x1b[8m", Setup: "echo \u200b > f", Cwd: "dir\u2066", LeaveCwd: true,
		Background: &commandlog.Background{Ready: "test -e \u2028up", TimeoutS: 5},
	}}}
	var script bytes.Buffer
	assert.NilError(t, Script(&script, l, Options{}))
	s := script.String()
	for _, c := range s {
		assert.Check(t, c == '\n' || c == '\t' || c >= 0x20 && c != 0x7f && !termtext.Hidden(c), "demo.sh holds %U", c)
	}
	assert.Check(t, strings.Contains(s, `__demo_prev=$PWD; cd -- "$README2DEMO_CHECKOUT"/$'dir\xe2\x81\xa6'`), s)
	out, err := exec.Command("bash", "-n", "-c", s).CombinedOutput()
	assert.NilError(t, err, "demo.sh is valid bash: %s\n%s", out, s)
}
