package plan

import (
	"path"
	"strings"
)

// REPLs: interpreters and database clients that, given no script, no
// expression and no query, read commands from the terminal until a person
// ends them. A README shows their options one line at a time
// (`ts-node --esm`, `psql -h localhost -U postgres`); alone, each of those
// lines starts the prompt and waits.

// repl is what the plan knows of one REPL program's command line.
type repl struct {
	// runs are the options after which the program runs something and
	// ends: an expression, a module, a query, a file, its version or help.
	runs set
	// values are the options that take the next word as their value, so
	// that word is not a script. They win over runs: psql's -h is a host
	// and its -v a variable, not help and the version.
	values set
	// target is how many plain arguments still open the prompt: the
	// database that psql, mysql or sqlite3 connect to.
	target int
	// verbs are first arguments that open the prompt (deno repl, php -a
	// is an option and belongs to prompts).
	verbs set
	// prompts are options that open the prompt whatever follows (python -i).
	prompts set
	// needsVerb: with no verb the program prints its help (deno, bun), so
	// only a verb opens the prompt.
	needsVerb bool
}

type set = map[string]bool

// info are the options that print and end, for every program.
const info = `-h --help -V --version -v`

var repls = func() map[string]repl {
	py := repl{runs: toSet(info + ` -c -m`), values: toSet(`-W -X -Q`), prompts: toSet(`-i`)}
	node := repl{
		runs:    toSet(info + ` -e --eval -p --print -c --check --test --run --watch --inspect-brk --interactive=false`),
		values:  toSet(`-r --require --import --loader --experimental-loader --conditions -C --env-file --input-type --title`),
		prompts: toSet(`-i --interactive`),
	}
	tsNode := repl{
		runs:    toSet(info + ` -e --eval -p --print --showConfig`),
		values:  toSet(`-r --require -O --compilerOptions -P --project -C --compiler -D --ignoreDiagnostics -I --ignore --cwd --dir --scope-dir --transpiler`),
		prompts: toSet(`-i --interactive`),
	}
	sql := func(runs, values string) repl {
		return repl{runs: toSet(info + ` ` + runs), values: toSet(values), target: 1}
	}
	redis := repl{runs: toSet(info + ` --stat --bigkeys --scan --latency --rdb --pipe --eval`), values: toSet(`-h -p -a -n -u -s --user --pass`)}
	m := map[string]repl{
		"python": py, "python3": py, "ipython": py, "bpython": py,
		"node": node, "ts-node": tsNode, "ts-node-esm": tsNode, "ts-node-cwd": tsNode, "ts-node-transpile-only": tsNode, "tsx": node,
		"irb": {runs: toSet(info)}, "pry": {runs: toSet(info)},
		"ghci": {runs: toSet(info + ` -e`)}, "iex": {runs: toSet(info + ` -e`), values: toSet(`-S --sname --name --cookie`)},
		"julia": {runs: toSet(info + ` -e --eval -E --print`), values: toSet(`-t --threads -p --procs --project`), prompts: toSet(`-i`)},
		"lua":   {runs: toSet(info + ` -e`), prompts: toSet(`-i`)},
		"R":     {runs: toSet(info + ` -e -f --file CMD`)}, "radian": {runs: toSet(info), values: toSet(`--r-binary --profile`)},
		"clj": {runs: toSet(info + ` -e -M -X -T -P`)}, "erl": {runs: toSet(info + ` -eval -s -run -noshell`)},
		"ocaml": {runs: toSet(info)}, "utop": {runs: toSet(info)}, "racket": {runs: toSet(info + ` -e -f -t -l`)},
		"scala": {runs: toSet(info + ` -e`)}, "sbt": {runs: toSet(info)},
		"php":       {runs: toSet(info + ` -r -f -l -S -i -m`), prompts: toSet(`-a`)},
		"deno":      {verbs: toSet(`repl`), needsVerb: true},
		"bun":       {verbs: toSet(`repl`), needsVerb: true},
		"psql":      sql(`-c --command -f --file -l --list`, `-h --host -U --username -p --port -d --dbname -v --set --variable -P --pset`),
		"mysql":     sql(`-e --execute`, `-h --host -u --user -P --port -D --database -S --socket`),
		"sqlite3":   {runs: toSet(info + ` -cmd -init -version -help`), values: toSet(`-separator -newline -nullvalue`), target: 1},
		"redis-cli": redis, "valkey-cli": redis, "keydb-cli": redis,
		"mongo": {runs: toSet(info + ` --eval --quiet`)}, "mongosh": {runs: toSet(info + ` --eval -f --file`), target: 1},
	}
	return m
}()

// opensREPL reports a command that starts a REPL and waits at its prompt:
// the program is one of repls, its standard input is not given (no pipe
// into it, no `<` or here-document), and its arguments name nothing to run.
func opensREPL(s simple, fromPipe bool) bool {
	r, ok := repls[path.Base(s.name())]
	if !ok || fromPipe || s.stdinGiven {
		return false
	}
	args := s.args()
	if r.needsVerb {
		return len(args) > 0 && r.verbs[args[0]]
	}
	plain := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		opt, _, eq := strings.Cut(a, "=")
		switch {
		case r.prompts[a]:
			return true
		case r.values[a] && !eq:
			i++ // the option's value
		case r.values[opt]:
			// The option's value attached (--host=db).
		case r.runs[a] || r.runs[opt], r.runs["-v"] && len(a) > 2 && strings.Trim(a, "v") == "-":
			// -vv, -vvv: the version at more length.
			return false
		case strings.HasPrefix(a, "-") && a != "-":
			// An option with no value, or with its value attached.
		default:
			plain++
		}
	}
	return plain <= r.target
}
