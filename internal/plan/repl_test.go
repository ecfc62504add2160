package plan

import (
	"testing"

	"gotest.tools/v3/assert"
)

// Which command lines open a REPL's prompt, by the table alone (the
// plan's other rules may skip such a line for another reason first).
func TestOpensREPL(t *testing.T) {
	for _, tc := range []struct {
		line string
		want bool
	}{
		{"python3", true},
		{"python3 -q", true},
		{"python3 -m http.server", false},
		{"python3 -V", false},
		{"ts-node --esm", true},
		{"ts-node -vvv", false},
		{"ts-node --transpiler sucrase/transpiler", true},
		{"ts-node src/index.ts", false},
		{"node --require dotenv/config", true},
		{"node --test", false},
		{"psql -h localhost -U postgres app", true}, // -h is the host, not help
		{"psql -v ON_ERROR_STOP=1 app", true},       // -v is a variable, not the version
		{"psql --host=db app", true},
		{"psql -h localhost -c 'select 1'", false},
		{"psql --help", false},
		{"mysql -h db -u root", true},
		{"mysql -h db -e 'select 1'", false},
		{"redis-cli -h localhost -p 6379", true},
		{"valkey-cli -h localhost PING", false},
		{"sqlite3 app.db", true},
		{"sqlite3 app.db 'select 1'", false},
		{"deno repl", true},
		{"deno --unstable", false},
		{"echo 1 | python3", false},
		{"python3 < script.py", false},
	} {
		cmds := simples(lex(tc.line))
		last := cmds[len(cmds)-1]
		fromPipe := len(cmds) > 1 && cmds[len(cmds)-2].piped
		assert.Check(t, opensREPL(last, fromPipe) == tc.want, "%s: want %v", tc.line, tc.want)
	}
}
