package plan

import (
	"path"
	"slices"
	"strings"

	"github.com/readme2demo/readme2demo/internal/lazyre"
)

// Servers on this machine that a command talks to: the URL or host a
// client names, and a database URL on localhost.

// httpClients are programs whose argument names a server to talk to.
var httpClients = toSet(`curl wget http https xh curlie httpie wrk hey ab siege vegeta k6 websocat wscat grpcurl`)

// localURL returns the URL or host of a server on this machine that a
// client talks to (curl localhost:8080, ssh -p 23231 localhost, git clone
// ssh://localhost:23231/repo, psql -h localhost), "" for none.
func localURL(cmds []simple) string {
	for _, s := range cmds {
		name, args := path.Base(s.name()), s.args()
		if u := localDatabaseURL(s); u != "" {
			return u
		}
		if u := urlOption(args); u != "" {
			return u
		}
		switch {
		case httpClients[name], name == "git" && len(args) > 0 && (args[0] == "clone" || args[0] == "push" || args[0] == "pull" || args[0] == "fetch" || args[0] == "remote"):
			for _, a := range args {
				if m := localURLRe.FindString(a); m != "" {
					return m
				}
				if u, ok := strings.CutPrefix(a, "ssh://"); ok && localURLRe.MatchString("ssh://"+u[strings.IndexByte(u, '@')+1:]) {
					return a // ssh://git@localhost:23231/repo
				}
			}
		case dbClients[name] && !slices.Contains(args, "-h") && !slices.Contains(args, "--host") && !slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, "://") }):
			return name + " (its default server on this machine)"
		case dbClients[name] || name == "ssh":
			for i, a := range args {
				if i > 0 && (args[i-1] == "-h" || args[i-1] == "--host") && localHostRe.MatchString(a) {
					return a
				}
				if host := a[strings.IndexByte(a, '@')+1:]; name == "ssh" && !strings.HasPrefix(a, "-") && localHostRe.MatchString(host) {
					return a
				}
			}
		}
	}
	return ""
}

var (
	// localURLRe is a URL of this machine.
	localURLRe = lazyre.New(`(?i)^(https?|wss?|ssh)://(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])(:\d+)?|^(localhost|127\.0\.0\.1):\d+|^(https?|wss?)://:\d+`)
)

// urlOptions are the options whose value is the address of a server the
// command talks to (jplot --url http://:8080/debug/vars).
var urlOptions = toSet(`--url -u --endpoint --server --api-url --base-url`)

// urlOption returns the value of a URL option that names this machine,
// "" for none.
func urlOption(args []string) string {
	for i, a := range args {
		name, v, ok := strings.Cut(a, "=")
		if !ok && i+1 < len(args) {
			name, v = a, args[i+1]
		}
		if urlOptions[name] && localURLRe.MatchString(strings.Trim(v, `"'`)) {
			return v
		}
	}
	return ""
}

// databaseURLRe is the URL of a database or message broker on this
// machine: its host is this machine's, or empty (a Unix socket:
// postgres://user@/db?host=/var/run/postgresql).
var databaseURLRe = lazyre.New(`(?i)^(postgres(ql)?|mysql|mariadb|redis|rediss|mongodb|clickhouse|amqps?|nats|sqlserver|mssql|cockroachdb)://([^/@\s]*@)?(localhost|127\.0\.0\.1|0\.0\.0\.0|\[::1\])?([:/?]\S*)?$`)

// localDatabaseURL returns a database URL on this machine that a command
// gives a program or a variable (dbmate -u postgres://…@127.0.0.1/app,
// DATABASE_URL=mysql://root@localhost/app), "" for none: whatever reads it
// needs that server running.
func localDatabaseURL(s simple) string {
	for _, v := range append(slices.Clone(s.assign), s.args()...) { // export NAME=value is an argument
		if _, after, ok := strings.Cut(v, "="); ok && !strings.Contains(v[:len(v)-len(after)], "://") {
			v = after // NAME=value, --url=value
		}
		if v = strings.Trim(v, `"'`); databaseURLRe.MatchString(v) {
			return v
		}
	}
	return ""
}

// localHostRe is this machine, as a client names it.
var localHostRe = lazyre.New(`(?i)^(localhost|127\.0\.0\.1|0\.0\.0\.0|::1|\[::1\])$`)

// dbClients are database clients whose -h names the server.
var dbClients = toSet(`psql mysql mariadb redis-cli valkey-cli mongosh mongo clickhouse-client cqlsh`)
