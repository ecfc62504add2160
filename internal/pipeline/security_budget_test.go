package pipeline_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
	"github.com/readme2demo/readme2demo/internal/pipeline"
	"github.com/readme2demo/readme2demo/internal/sandbox"
	"github.com/readme2demo/readme2demo/internal/sandbox/sandboxtest"
	"github.com/readme2demo/readme2demo/internal/scriptedllm"
)

// costStreamer is a test engine whose transcript streams a growing cost,
// one JSON line a second ({"cost": 1}, {"cost": 2}, ...) for two minutes,
// as OpenHands' metrics do: the budget must stop it as soon as the cap is
// crossed.
type costStreamer struct{}

const costStreamerName = "test-cost-stream"

func (costStreamer) Name() string          { return costStreamerName }
func (costStreamer) RequiredEnv() []string { return nil }
func (costStreamer) ResolveEnv(func(string) string) (map[string]string, error) {
	return map[string]string{}, nil
}
func (costStreamer) BuildCommand(engines.Limits) string {
	return `for i in $(seq 1 120); do echo "{\"cost\": $i}" >> ` + engines.TranscriptContainerPath + `; sleep 1; done; echo '{"done": true}' >> ` + engines.TranscriptContainerPath
}

func (costStreamer) ParseTranscript(r io.Reader) (*commandlog.Log, error) {
	l := &commandlog.Log{SchemaVersion: 1, Engine: costStreamerName, Outcome: commandlog.OutcomeFailed, OutcomeReason: "the agent did not finish"}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var rec struct {
			Cost *float64 `json:"cost"`
			Done bool     `json:"done"`
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil {
			continue
		}
		if rec.Cost != nil {
			c := *rec.Cost
			l.CostUSD = &c
		}
		if rec.Done {
			l.Outcome, l.OutcomeReason = commandlog.OutcomeSuccess, ""
		}
	}
	return l, nil
}

func init() { engines.Register(costStreamer{}, engines.Spec{}) }

// A transcript that streams cost: the agent is stopped within seconds of
// crossing the cap, the run ends failed with the reason in the report, and
// the container is gone.
func TestCostCapStopsAStreamingAgent(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	runID := sandbox.NewRunID()
	var progress bytes.Buffer
	start := time.Now()
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine: costStreamerName, RepoDir: writeRepo(t, "# x\n"), Image: img,
		Limits: engines.Limits{MaxCostUSD: 2.5, Timeout: 2 * time.Minute}, OutDir: t.TempDir(), RunID: runID,
		Network: pipeline.NetworkNone, Progress: &progress, Docker: cli,
	})
	took := time.Since(start)
	t.Logf("progress:\n%s", progress.String())
	assert.NilError(t, err)
	assertNothingLeft(t, cli, runID)
	assert.Check(t, is.Equal(res.Log.Outcome, commandlog.OutcomeFailed))
	// The streamer adds a dollar a second for 120 s: the cap is crossed at
	// $3.00, and the agent is stopped at the next transcript poll. How much
	// it adds meanwhile depends on the machine's load (seen: $16 when the
	// container took half a minute to start), so the check is that it was
	// stopped long before it would have ended by itself ($120, 2 min: the
	// end-of-run check and the timeout), not a tight bound on the time.
	m := regexp.MustCompile(`^cost \$([0-9]+)\.00 exceeded the cap \$2\.50`).FindStringSubmatch(res.Log.OutcomeReason)
	assert.Assert(t, m != nil, res.Log.OutcomeReason)
	cost, _ := strconv.Atoi(m[1])
	assert.Check(t, cost >= 3 && cost <= 60, "the agent was not stopped soon after the cap: %s", res.Log.OutcomeReason)
	assert.Check(t, took < 90*time.Second, "the agent was not stopped at the cap: %s", took)
	assert.Check(t, is.Contains(res.Log.OutcomeReason, "the agent was stopped"))
	assert.Check(t, !res.Canceled && !res.TimedOut)
	rep, err := os.ReadFile(res.Report)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(rep), "exceeded the cap $2.50"))
	assert.Check(t, is.Contains(progress.String(), "crossed the cap $2.50: stopping the agent"))
}

// Claude Code reports its cost only at the end: a finished run whose cost
// is over the cap ends failed with that reason.
func TestCostCapFailsAFinishedClaudeCodeRun(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	gw, err := sandbox.BridgeGateway(ctx, cli)
	assert.NilError(t, err)
	srv, err := scriptedllm.Start(gw+":0", scriptedllm.Scenario{Name: "cost", Turns: []scriptedllm.Turn{
		scriptedllm.Run("", scriptedllm.Bash("echo hello")), scriptedllm.Say("SUCCESS"),
	}})
	assert.NilError(t, err)
	defer srv.Close()
	runID := sandbox.NewRunID()
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine: engines.ClaudeCodeName, RepoDir: writeRepo(t, "# x\n"), Image: img,
		Limits: engines.Limits{MaxTurns: 10, MaxCostUSD: 0.000001, Timeout: 3 * time.Minute}, OutDir: t.TempDir(), RunID: runID,
		Network: pipeline.NetworkAllowlist,
		Getenv:  env(map[string]string{"ANTHROPIC_API_KEY": scriptedllm.DummyAPIKey, "ANTHROPIC_BASE_URL": srv.URL()}),
		Docker:  cli,
	})
	assert.NilError(t, err)
	assertNothingLeft(t, cli, runID)
	assert.Assert(t, res.Log.CostUSD != nil)
	assert.Check(t, is.Equal(res.Log.Outcome, commandlog.OutcomeFailed))
	assert.Check(t, is.Contains(res.Log.OutcomeReason, "exceeded the cap $0.000001"), res.Log.OutcomeReason)
	rep, err := os.ReadFile(res.Report)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(rep), "exceeded the cap $0.000001"))
}

// The timeout kills the container; the partial transcript is parsed, the
// run ends failed with the reason in the report, and the container, the
// proxy and the network are gone.
func TestTimeoutEndsTheRunAndCleansUp(t *testing.T) {
	cli, img := sandboxtest.Docker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	gw, err := sandbox.BridgeGateway(ctx, cli)
	assert.NilError(t, err)
	srv, err := scriptedllm.Start(gw+":0", scriptedllm.Scenario{Name: "hang", Turns: []scriptedllm.Turn{
		scriptedllm.Run("", scriptedllm.Bash("echo before-the-hang")),
		scriptedllm.Run("", scriptedllm.Bash("python3 -c 'import time; time.sleep(600)'")),
		scriptedllm.Say("SUCCESS"),
	}})
	assert.NilError(t, err)
	defer srv.Close()
	runID := sandbox.NewRunID()
	res, err := pipeline.Run(ctx, pipeline.Config{
		Engine: engines.ClaudeCodeName, RepoDir: writeRepo(t, "# x\n"), Image: img,
		Limits: engines.Limits{MaxTurns: 10, Timeout: 30 * time.Second}, OutDir: t.TempDir(), RunID: runID,
		Network: pipeline.NetworkAllowlist,
		Getenv:  env(map[string]string{"ANTHROPIC_API_KEY": scriptedllm.DummyAPIKey, "ANTHROPIC_BASE_URL": srv.URL()}),
		Docker:  cli,
	})
	assert.NilError(t, err)
	assertNothingLeft(t, cli, runID)
	assert.Check(t, res.TimedOut)
	assert.Check(t, is.Equal(res.Log.Outcome, commandlog.OutcomeFailed))
	// The reason says what happened, then what to change.
	assert.Check(t, is.Equal(res.Log.OutcomeReason, "timed out after 30s: the agent was stopped; "+
		"raise the limit with --timeout (Action input `timeout-minutes`) if the README needs longer"))
	// The partial transcript is parsed: the scripted commands in order (a
	// request the CLI retried gets the same turn again), the one that ended
	// with its exit code, and the one the timeout killed, the hang, unknown
	// with no exit code.
	scripted := []string{"echo before-the-hang", "python3 -c 'import time; time.sleep(600)'"}
	cmds := res.Log.Commands
	assert.Assert(t, len(cmds) >= 1 && len(cmds) <= len(scripted), "the partial transcript was not parsed: %+v", cmds)
	for i, c := range cmds {
		assert.Check(t, is.Equal(c.Command, scripted[i]))
	}
	if len(cmds) == len(scripted) {
		assert.Check(t, cmds[0].Status == commandlog.StatusOK && cmds[0].ExitCode != nil && *cmds[0].ExitCode == 0, "%+v", cmds[0])
		hung := cmds[1]
		assert.Check(t, is.Equal(hung.Status, commandlog.StatusUnknown))
		assert.Check(t, hung.ExitCode == nil, "a killed command has no exit code")
	} else {
		// On a machine loaded enough for the CLI to spend 30 s on its first
		// turn, the timeout cuts "echo" (or the wait for the next turn).
		t.Logf("the CLI had not reached the hanging command at the timeout: %+v", cmds[0])
		assert.Check(t, cmds[0].Status != commandlog.StatusFailed, "%+v", cmds[0])
	}
	rep, err := os.ReadFile(res.Report)
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(rep), "timed out after 30s"))
}
