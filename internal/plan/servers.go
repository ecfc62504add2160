package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Programs that do not end by themselves: servers, watchers, followers,
// and a README that presents its project as a server.

// follows names a command that runs until interrupted (tail -f), "" for
// others: besides the programs below, by the conventions of command lines,
// a `--watch` option (tsc, jest, webpack, sass: rebuild on every change), a
// `watch` subcommand (`gulp watch`, `tool watch`) and the logs of anything
// followed (`tool logs -f`); and fuzzing with no time limit.
func follows(cmds []simple, programs map[string]bool) string {
	for _, s := range cmds {
		name, args := path.Base(s.name()), s.args()
		if w := watcher(name, args, programs); w != "" {
			return w
		}
		switch name {
		case "tail", "journalctl", "less":
			for _, a := range args {
				if a == "-f" || a == "-F" || a == "--follow" || strings.HasPrefix(a, "--follow=") {
					return name + " " + a
				}
			}
		case "yes":
			if !s.piped { // `yes | installer`, `yes | head`: the reader ends it
				return "yes"
			}
		case "go":
			// Go's fuzzing runs until it finds a failure or is stopped,
			// unless -fuzztime bounds it.
			if len(args) > 0 && args[0] == "test" && hasOption(args, "-fuzz") && !hasOption(args, "-fuzztime") {
				return "go test -fuzz, with no -fuzztime"
			}
		}
	}
	return ""
}

// watcher names a command that runs until interrupted by the conventions
// of command lines: a `--watch` option that is not turned off, a `watch`
// subcommand of a program the system does not have (`gulp watch`; not `ls
// watch`, `cat watch`, whose argument is a file: programs is the sandbox
// image's command list), or followed logs (`tool logs -f`, `docker compose
// logs --follow`); "" for others.
func watcher(name string, args []string, programs map[string]bool) string {
	if len(args) > 0 && args[0] == "watch" && !programs[name] {
		return name + " watch"
	}
	if i := slices.Index(args, "logs"); i >= 0 && i <= 1 {
		for _, a := range args[i+1:] {
			if a == "-f" || a == "--follow" {
				return name + " logs " + a
			}
		}
		if off, ok := followsLogs[name]; ok && i == 0 && !slices.Contains(args, off) {
			return name + " logs (it follows them unless " + off + ")"
		}
	}
	for i, a := range args {
		opt, v, _ := strings.Cut(a, "=")
		if (opt == "--watch" || opt == "--watchAll") && v != "false" && v != "0" {
			if i > 0 {
				return name + " … " + opt
			}
			return name + " " + opt
		}
	}
	return ""
}

// followsLogs are programs whose `logs` subcommand follows the logs by
// default, with the option that turns it off.
var followsLogs = map[string]string{"pm2": "--nostream"}

// serverRe matches commands that start a server or a watcher and do not
// return: `npm start`, `python -m http.server`, `hugo server`.
var serverRe = lazyre.New(`^(npm (start|run (dev|serve|start|watch))|yarn (start|dev|serve)|pnpm (start|dev)|bun (run )?(dev|start)|python3? -m http\.server|php -S|php artisan serve|symfony (serve|server:start)|(bundle exec )?(rails|jekyll|middleman) (s|server|serve)|hugo server|mkdocs serve|flask run|fastapi (dev|run)|streamlit run|uvicorn|gunicorn|hypercorn|daphne|http-server|live-server|serve|nodemon|npx (http-server|serve|live-server|nodemon|vite|next (dev|start)|nuxt dev|astro dev|parcel)|vite|next (dev|start)|ng serve|webpack (serve|-dev-server)|docker(-| )compose up|python3? manage\.py runserver|mvn spring-boot:run|\./mvnw spring-boot:run|gradle bootRun|\./gradlew bootRun|cargo watch|air|deno task (dev|start)|mix phx\.server|iex -S mix phx\.server|dotnet (run|watch)|redis-server|valkey-server|memcached|nginx|caddy (run|file-server|reverse-proxy))\b|^(npx )?[a-z][\w.-]*-server(\s|$)`)

// server names a command that starts a server and keeps running, "" for
// others. A `-d` (detached) compose is not one.
func server(cmds []simple) string {
	if len(cmds) == 0 {
		return ""
	}
	s := cmds[len(cmds)-1]
	if notServing(s) {
		return ""
	}
	for _, a := range s.args() {
		if a == "-d" || a == "--detach" {
			return ""
		}
	}
	if m := serverRe.FindString(s.line()); m != "" {
		return m
	}
	if n := path.Base(s.name()); n != s.name() {
		// ./src/valkey-server, build/bin/caddy run: the program by its name.
		if m := serverRe.FindString(n + strings.TrimPrefix(s.line(), s.name())); m != "" {
			return m
		}
	}
	// `tool serve`, `tool server`: a program's subcommand that serves.
	if args := s.args(); len(args) > 0 && (args[0] == "serve" || args[0] == "server") && !shellWords[s.name()] {
		return s.name() + " " + args[0]
	}
	return ""
}

// notServing reports a run of a server's program that does not serve: its
// version or help, or a subcommand that writes its set-up and exits (`air
// init`, `tool completion bash`).
func notServing(s simple) bool {
	args := s.args()
	return s.onlyInfo() || len(args) == 1 && args[0] == "-v" ||
		len(args) > 0 && (args[0] == "init" || args[0] == "completion" || args[0] == "completions")
}

// runsUntilStopped skips a command that runs until interrupted (tail -f).
func runsUntilStopped(pl *planner, x *cmd) (Entry, bool) {
	if what := follows(x.cmds, pl.programs); what != "" {
		return pl.skip(x, because(KindServer, "runs until interrupted (%s)", what))
	}
	return pass()
}

// serverRule skips a command that starts a server or a watcher in the
// foreground: it never ends by itself, and what would talk to it is a
// person. The block's background hint runs it in the background instead.
func serverRule(pl *planner, x *cmd) (Entry, bool) {
	if x.b.Hints.Background {
		return pass()
	}
	if what := server(x.cmds); what != "" {
		return pl.skip(x, because(KindServer, "starts a server (%s), which runs until it is stopped (add the background hint to run it in the background)", what))
	}
	if pl.readme.server != "" {
		for i, s := range x.cmds {
			if pl.repo.is(path.Base(s.name())) && !notServing(s) && !s.piped && !s.redirected && (i == 0 || !x.cmds[i-1].piped) {
				return pl.skip(x, because(KindServer, "runs %s, which the README presents as a server or a watcher (%q): it runs until it is stopped (add the background hint to run it in the background)", s.name(), pl.readme.server))
			}
		}
	}
	return pass()
}

// serverIntroRe is a README opening that presents the project as a server,
// a proxy or a tunnel: "A simple HTTP server", "a self-hostable Git server".
var serverIntroRe = lazyre.New(`(?i)\b(http|https|web|file|files|static|git|ssh|tcp|udp|api|mock|dev(elopment)?|reverse|socks5?|dns|smtp|mail|proxy|caching|application|app|media|streaming|websocket)\s+(file\s+)?(server|proxy|tunnel)s?\b|\bself-hostable\b|\b(tunnel|proxy) (server|client)\b|\bserv(e|es|ing)\s+(files|directories|dirs|static|content|folders)\b`)

// watcherIntroRe is a README opening that presents the project as a
// watcher, which runs until stopped: "Watches your .go files in a
// directory", "triggers commands … in response to filesystem changes".
var watcherIntroRe = lazyre.New(`(?i)\bwatch(es|ing)?\s+(your\s+|the\s+)?([\w.*/-]+\s+)?(files?|director(y|ies)|folders?|source\s+code)\b|\b(in\s+response\s+to|on|upon)\s+(file|filesystem|file\s+system|source)\s+changes?\b|\bwhen(ever)?\s+(a\s+|your\s+)?(source\s+)?files?\s+(change|changes|changed)\b`)

// htmlAltRe is an image's alt text.
var htmlAltRe = lazyre.New(`alt="([^"]*)"`)

// presentsServer is the phrase of a README's opening that presents the
// project as a server or a watcher, "" for none.
func presentsServer(src []byte) string {
	intro := plainText(introText(src))
	if m := watcherIntroRe.FindString(intro); m != "" {
		return strings.Join(strings.Fields(m), " ")
	}
	if low := strings.ToLower(intro); !strings.Contains(low, "serv") && !strings.Contains(low, "prox") && !strings.Contains(low, "tunnel") && !strings.Contains(low, "host") {
		return "" // every match holds one of these; most openings hold none
	}
	if i := strings.Index(intro, "<"); i >= 0 && strings.Contains(intro, "alt=") {
		intro = htmlAltRe.ReplaceAllString(intro, " $1 ") // a logo's alt text often says what the project is
	}
	for _, m := range serverIntroRe.FindAllStringIndex(intro, -1) {
		// "to serve files" is what it does; "to HTTP servers", what it talks to.
		if verb := strings.HasPrefix(strings.ToLower(intro[m[0]:m[1]]), "serv"); verb || !notWhatItIs(intro[:m[0]]) {
			return intro[m[0]:m[1]]
		}
	}
	return ""
}

// notWhatItIsRe is the end of the text before a server phrase when the
// phrase names what the project works with or is not: "interacting with
// APIs & HTTP servers", "a client for HTTP servers", "not a web server".
var notWhatItIsRe = lazyre.New(`(?i)(\b(with|to|against|for|from|of|on|by|between)\s+([\w.-]+\s+(&|and|or)\s+|local\s+|remote\s+|your\s+|any\s+|other\s+)?|\b(not|isn't|no)\s+(an?\s+)?)$`)

// notWhatItIs reports text before a server phrase that makes the phrase
// the object of a preposition, or denies it, in the same sentence.
func notWhatItIs(before string) bool {
	if i := strings.LastIndexAny(before, ".!?\n"); i >= 0 {
		before = before[i+1:]
	}
	return notWhatItIsRe.MatchString(before)
}

// hasOption reports a Go-style option among args, given alone or with its
// value: -fuzz, -fuzz=X, --fuzz X.
func hasOption(args []string, opt string) bool {
	for _, a := range args {
		a = "-" + strings.TrimLeft(a, "-")
		if a == opt || strings.HasPrefix(a, opt+"=") {
			return true
		}
	}
	return false
}
