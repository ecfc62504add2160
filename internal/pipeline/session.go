package pipeline

import (
	"bytes"
	"fmt"
	"io"

	"github.com/readme2demo/readme2demo/engines"
	"github.com/readme2demo/readme2demo/internal/commandlog"
)

// SessionFile is the agent CLI's own session file, copied out of the
// container for engines that merge it (engines.SessionMerger: Gemini CLI's
// chat session, which states every shell command's exit code).
const SessionFile = "session.jsonl"

// sessionCollect is what the sandbox copies out for eng's session file.
func sessionCollect(eng engines.AgentEngine) []string {
	if _, ok := eng.(engines.SessionMerger); !ok {
		return nil
	}
	return []string{engines.SessionContainerPath}
}

// mergeSession merges the session file the run left (if any) into log and
// returns it, to be written beside the transcript. A session that cannot
// be read changes nothing: the log stays as the transcript says.
func mergeSession(eng engines.AgentEngine, log *commandlog.Log, collected map[string][]byte, progress io.Writer) []byte {
	m, ok := eng.(engines.SessionMerger)
	session := collected[engines.SessionContainerPath]
	if !ok || len(bytes.TrimSpace(session)) == 0 {
		return nil
	}
	n, err := m.MergeSession(log, bytes.NewReader(session))
	if err != nil {
		fmt.Fprintf(progress, "warning: %v\n", err)
		return session
	}
	fmt.Fprintf(progress, "%s session file: exact results for %d command(s)\n", eng.Name(), n)
	return session
}
