# shellcheck shell=bash
# readme2demo runner: the helper functions of the script the keyless engines
# (markdown, replay) run in the sandbox. internal/runner/runner.go embeds this
# file (go:embed) between a generated header, which sets the variables below,
# and the generated steps, which set __r2d_step and call __r2d_begin /
# __r2d_end around each command. The steps run in ONE bash session (cd,
# export and functions carry over), so the command itself is eval'd by the
# generated code at top level, not in a function here. CI runs shellcheck on
# this file.
#
# The runner reports facts and decides nothing but whether to go on: it
# prints the records Go wrote (the plan, each command's start) and writes
# what it observed (end, background_output, stop, summary: the fields of the
# Go types in internal/runner/records.go). Why a command failed, and the
# run's outcome, are decided in Go, from those facts.
#
# Set by the generated header:
#   __r2d_transcript    the JSONL transcript to write
#   __r2d_workspace     the directory the run starts in
#   __r2d_work          the runner's own directory for command output (NOT
#                       under /tmp: a README that fills /tmp must not take the
#                       output of every later command with it)
#   __r2d_no_workspace  the error record to write when the workspace cannot
#                       be entered
#   README2DEMO_CHECKOUT  the workspace again, as the steps' exec text names the
#                       checkout (a clone of the repository linked to it)
# Set by each generated step, in the associative array __r2d_step (the keys
# are the sh tags of stepVars in internal/runner/runner.go):
#   record         the start record to print as the command begins
#   id             the id of its end record
#   where          its README line, for the progress lines
#   exec           the command, which the generated code evaluates
#   cwd            the directory to enter first ("" none)
#   timeout        seconds before the watchdog kills it (0: none)
#   ready, ready_timeout   a background command's readiness check and its
#                  limit in seconds
#   check, expect  1 to compare the output with the text expect
#   pass           the facts the command must show for the run to go on
#                  ("" when it goes on whatever happens); see __r2d_record_end
#
# Only bash builtins, /proc and coreutils (base64, head, tail, wc, mkfifo,
# mktemp, rm, sleep as a fallback) are used, and the helpers survive a README
# that sets -e, -u, pipefail, noclobber, xtrace or noglob (each helper
# switches them off and restores them), that defines functions named like
# builtins or tools (`:` in a fork bomb, a `cd` wrapper: the helpers call
# `builtin x` and `command -p x`) or that changes PATH.
# The per-command timeout must work under a fork bomb: the watchdog and the
# killer fork nothing while they work (a FIFO read with a timeout is their
# sleep), and they kill every process that appeared since the command
# began, orphans included, not only the command's descendants.

: "${__r2d_transcript:?}" "${__r2d_workspace:?}" "${__r2d_work:?}" "${__r2d_no_workspace:?}"

# The runner leads a session of its own: what the README starts belongs to
# it (unless it calls setsid itself), so a timeout kills this run's
# processes and nobody else's.
if [ -z "${__r2d_in_session:-}" ] && command -v setsid >/dev/null 2>&1; then
	__r2d_in_session=1 exec setsid -w bash "${BASH_SOURCE[0]}" "$@"
fi
unset __r2d_in_session

# The runner's own directory; a fallback when it cannot be made.
if ! mkdir -p "$__r2d_work" 2>/dev/null || ! : >"$__r2d_work/.probe" 2>/dev/null; then
	__r2d_work=$(mktemp -d 2>/dev/null) || __r2d_work=${HOME:-/tmp}/.readme2demo-runner.$$
	mkdir -p "$__r2d_work" 2>/dev/null
fi
# (.probe stays: the directory is removed at the end.)
: >"$__r2d_transcript" || exit 2

declare -A __r2d_step=()
__r2d_runaway=0
# More processes than this left behind by one command is a runaway.
__r2d_runaway_max=100
__r2d_cur=
__r2d_done=0
__r2d_stopped=0
__r2d_bg_ids=
__r2d_bg_pids=
__r2d_wd=
__r2d_t0=
__r2d_t1=
__r2d_ms=
__r2d_out=
__r2d_lost=
__r2d_ps=
__r2d_pipes=
__r2d_stdin=/dev/null
__r2d_read=false
__r2d_prevwd=
__r2d_snapshot=
__r2d_found=
__r2d_head=
__r2d_tail=
__r2d_omit=0
__r2d_opts=
__r2d_tickfd=
__r2d_ppid=
__r2d_state=
__r2d_sess=
__r2d_start=
__r2d_j=

__r2d_emit() { builtin printf '%s\n' "$1" >>"$__r2d_transcript"; }

# __r2d_clock: sets __r2d_ms to the time in milliseconds (no fork on bash 5).
__r2d_clock() {
	local t=${EPOCHREALTIME:-}
	if [ -n "$t" ]; then
		t=${t/[.,]/}
		__r2d_ms=$((10#$t / 1000))
	else
		__r2d_ms=$(command -p date +%s%3N)
	fi
}
__r2d_clock
__r2d_run_t0=$__r2d_ms

# A FIFO nobody writes to: reading it with a timeout is a sleep that forks
# nothing. Without mkfifo, sleep(1) it is.
[ ! -e "$__r2d_work/tick" ] || command -p rm -f "$__r2d_work/tick" 2>/dev/null
if command -p mkfifo "$__r2d_work/tick" 2>/dev/null && exec {__r2d_tickfd}<>"$__r2d_work/tick"; then
	:
else
	__r2d_tickfd=
fi
# __r2d_sleep SECONDS
__r2d_sleep() {
	if [ -n "$__r2d_tickfd" ]; then
		builtin read -r -t "$1" -u "$__r2d_tickfd" _ 2>/dev/null
	else
		# In the background, so that a trap (the watchdog's TERM) runs at once.
		command -p sleep "$1" &
		builtin wait "$!"
	fi
	return 0
}

# A reserve on the runner's disk: when a README fills it, removing the
# reserve leaves room for the transcript records that say so.
__r2d_reserve() { command -p head -c 1048576 /dev/zero >"$__r2d_work/reserve" 2>/dev/null || command -p rm -f "$__r2d_work/reserve"; }
__r2d_reserve

# __r2d_encode FILE: sets __r2d_head, __r2d_tail (base64) and __r2d_omit.
__r2d_encode() {
	local size
	__r2d_tail=
	__r2d_omit=0
	if [ ! -s "$1" ]; then # no output (cd, export, a quiet build): no fork
		__r2d_head=
		return 0
	fi
	size=$(command -p wc -c <"$1" 2>/dev/null)
	size=${size//[^0-9]/}
	size=${size:-0}
	if [ "$size" -le 81920 ]; then
		__r2d_head=$(command -p base64 -w0 <"$1" 2>/dev/null)
	else
		__r2d_head=$(command -p head -c 65536 "$1" | command -p base64 -w0)
		__r2d_tail=$(command -p tail -c 16384 "$1" | command -p base64 -w0)
		__r2d_omit=$((size - 81920))
	fi
}

# __r2d_json STRING: sets __r2d_j to STRING escaped for a JSON string.
__r2d_json() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\n'/\\n}
	s=${s//$'\r'/\\r}
	s=${s//$'\t'/\\t}
	__r2d_j=${s//[$'\001'-$'\037']/?}
}

# __r2d_stat PID: sets __r2d_ppid and __r2d_start (the process's parent and
# start time, from /proc) or returns 1 when it is gone.
__r2d_stat() {
	local stat rest
	{ builtin read -r stat <"/proc/$1/stat"; } 2>/dev/null || return 1
	rest=${stat##*) }
	# shellcheck disable=SC2086 # split the fields of /proc/PID/stat
	builtin set -- $rest
	__r2d_state=$1
	__r2d_ppid=$2
	__r2d_sess=$4
	__r2d_start=${20}
}
__r2d_sid=
__r2d_stat $$ && __r2d_sid=$__r2d_sess

# __r2d_snap: remembers every process that exists now (pid:start time), so
# that a timeout kills only what appeared after.
__r2d_snap() {
	local p
	__r2d_snapshot=" "
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		__r2d_stat "$p" || continue
		__r2d_snapshot="$__r2d_snapshot$p:$__r2d_start "
	done
}

# __r2d_tree ROOT SKIP...: sets __r2d_found to the descendants of ROOT, not
# entering the subtrees of the SKIP pids.
__r2d_tree() {
	local queue=$1 cur p skip=" ${*:2} "
	__r2d_found=
	while [ -n "$queue" ]; do
		cur=${queue%% *}
		if [ "$cur" = "$queue" ]; then queue=; else queue=${queue#* }; fi
		for p in /proc/[0-9]*; do
			p=${p#/proc/}
			case "$skip" in *" $p "*) continue ;; esac
			__r2d_stat "$p" || continue
			if [ "$__r2d_ppid" = "$cur" ]; then
				__r2d_found="$__r2d_found $p"
				queue="${queue:+$queue }$p"
			fi
		done
	done
}

# __r2d_new KEEP...: sets __r2d_found to the processes that appeared since
# the last snapshot, except the KEEP pids and the descendants of background
# jobs (a server started earlier keeps its workers); __r2d_dead to those of
# them that have ended but are not reaped yet.
__r2d_new() {
	local p keep=" $* " bgkids=" "
	if [ -n "${__r2d_bg_pids// /}" ]; then
		local b
		for b in $__r2d_bg_pids; do
			__r2d_tree "$b"
			bgkids="$bgkids$b $__r2d_found "
		done
	fi
	__r2d_found=
	__r2d_dead=
	for p in /proc/[0-9]*; do
		p=${p#/proc/}
		case "$keep$bgkids" in *" $p "*) continue ;; esac
		__r2d_stat "$p" || continue
		[ -z "$__r2d_sid" ] || [ "$__r2d_sess" = "$__r2d_sid" ] || continue
		case "$__r2d_snapshot" in *" $p:$__r2d_start "*) continue ;; esac
		case "$__r2d_state" in
		Z | X) __r2d_dead="$__r2d_dead $p" ;;
		*) __r2d_found="$__r2d_found $p" ;;
		esac
	done
}

# __r2d_sweep KEEP...: kills every process that appeared since the
# snapshot. A fork bomb refills every pid a kill frees, so it is stopped
# first, all of it, and killed only once nothing of it still runs; then
# again, until nothing is left. Forks nothing.
__r2d_sweep() {
	local round=0 p running quiet=0
	while [ "$round" -lt 100 ]; do
		round=$((round + 1))
		__r2d_new "$@"
		if [ -z "${__r2d_found// /}" ]; then
			# A child forked just before its parent died shows up late:
			# done only after a few quiet looks.
			quiet=$((quiet + 1))
			if [ "$quiet" -ge 3 ]; then
				__r2d_reaped "$@"
				return 0
			fi
			__r2d_sleep 0.1
			continue
		fi
		quiet=0
		# shellcheck disable=SC2086 # a list of pids
		builtin kill -STOP $__r2d_found 2>/dev/null
		running=
		for p in $__r2d_found; do
			__r2d_stat "$p" || continue
			case "$__r2d_state" in T | t | Z | X) ;; *) running=1 ;; esac
		done
		# A process blocked in the kernel (state D) stops only later: after
		# a few rounds, kill what there is anyway.
		if [ -z "$running" ] || [ "$round" -gt 8 ]; then
			# shellcheck disable=SC2086
			builtin kill -KILL $__r2d_found 2>/dev/null
			# shellcheck disable=SC2086
			builtin kill -CONT $__r2d_found 2>/dev/null
		fi
		[ "$round" -lt 5 ] || __r2d_sleep 0.05
	done
	return 0
}

# __r2d_reaped KEEP...: waits until no process that appeared since the
# snapshot (but the KEEP pids and background jobs') is left ended but
# unreaped: up to five seconds, and on while the count keeps falling, up to
# a minute. A killed process keeps its pid, and counts against the
# sandbox's process limit, until its parent (or init, for an orphan) reaps
# it: after a fork bomb, thousands of them, and under load the next
# command's fork failed on the limit (bash then ends the runner with 254).
# Forks nothing.
__r2d_reaped() {
	local deadline last n=-1 dead
	__r2d_clock
	deadline=$((__r2d_ms + 5000))
	last=$((__r2d_ms + 60000))
	while __r2d_new "$@"; [ -n "${__r2d_dead// /}" ]; do
		__r2d_clock
		if [ "$__r2d_ms" -ge "$deadline" ]; then
			# After five seconds, a second at a time while fewer are left.
			# shellcheck disable=SC2206 # a list of pids
			dead=($__r2d_dead)
			[ "$n" -lt 0 ] || [ "${#dead[@]}" -lt "$n" ] || return 0
			[ "$__r2d_ms" -lt "$last" ] || return 0
			n=${#dead[@]}
			deadline=$((__r2d_ms + 1000))
		fi
		__r2d_sleep 0.05
	done
	return 0
}

__r2d_kill() { # PIDS: TERM, a grace period, then KILL
	[ -n "${1// /}" ] || return 0
	# shellcheck disable=SC2086 # a list of pids
	builtin kill -TERM $1 2>/dev/null
	local i alive p
	for i in 1 2 3 4 5 6 7 8 9 10; do
		alive=
		for p in $1; do if builtin kill -0 "$p" 2>/dev/null; then alive=1; fi; done
		[ -n "$alive" ] || return 0
		__r2d_sleep 0.2
	done
	# shellcheck disable=SC2086
	builtin kill -KILL $1 2>/dev/null
	return 0
}

# __r2d_save / __r2d_restore: the helpers run with the options a README may
# have set (errexit, nounset, pipefail, noclobber, xtrace, noglob) turned
# off, and turn them back on after. No command substitution: under a fork
# bomb a fork can wait for many seconds.
__r2d_save() {
	__r2d_opts=$-
	if builtin shopt -qo pipefail; then __r2d_opts="${__r2d_opts}P"; fi
	builtin set +euCxf +o pipefail
}
__r2d_restore() {
	local o
	for o in e u C x f; do
		case "$__r2d_opts" in *"$o"*) builtin set "-$o" ;; esac
	done
	case "$__r2d_opts" in *P*) builtin set -o pipefail ;; esac
	return 0
}

# __r2d_outfile: sets __r2d_out to a file for the next command's output, or
# to /dev/null with __r2d_lost saying why when no place can take it.
__r2d_outfile() {
	__r2d_lost=
	local f
	for f in "$__r2d_work/out" "${HOME:-/nonexistent}/.readme2demo-out.$$" "${TMPDIR:-/tmp}/readme2demo-out.$$"; do
		[ -d "${f%/*}" ] || command -p mkdir -p "${f%/*}" 2>/dev/null
		if { builtin : >|"$f"; } 2>/dev/null; then
			__r2d_out=$f
			return 0
		fi
	done
	__r2d_out=/dev/null
	__r2d_lost="no writable place for the output (the runner's directory $__r2d_work, \$HOME and \$TMPDIR all refused a new file)"
}

# __r2d_checkroom: after a command, says in __r2d_lost when the disk that
# holds its output was full (the output may then be cut short), and gives
# back the reserve so that the transcript can still be written.
__r2d_checkroom() {
	[ "$__r2d_out" != /dev/null ] || return 0
	local probe="${__r2d_out%/*}/.room"
	if { builtin printf 'x' >|"$probe"; } 2>/dev/null; then
		command -p rm -f "$probe"
		return 0
	fi
	command -p rm -f "$probe" "$__r2d_work/reserve" 2>/dev/null
	__r2d_lost="the disk holding the output was full, so the output may be cut short"
}

# __r2d_input: sets __r2d_stdin to the next command's standard input: an
# empty file (end of file at once, as /dev/null) whose access time tells
# whether the command read it. Its modification time is now, its access
# time 1970 until something reads it (which sets it to now, on any mount
# but noatime); /dev/null when no such file can be made. Forks only to make
# the file.
__r2d_input() {
	local f="$__r2d_work/stdin"
	__r2d_read=false
	if [ -f "$f" ] && { builtin : >|"$f"; } 2>/dev/null; then
		__r2d_stdin=$f
	elif { builtin : >|"$f"; } 2>/dev/null && command -p touch -a -d @0 "$f" 2>/dev/null; then
		__r2d_stdin=$f
	else
		__r2d_stdin=/dev/null
	fi
}

# __r2d_was_read: sets __r2d_read to true when the command read its
# standard input (and got end of file), and makes the file unread again.
__r2d_was_read() {
	if [ "$__r2d_stdin" != /dev/null ] && [ -f "$__r2d_stdin" ] && ! [ -N "$__r2d_stdin" ]; then
		__r2d_read=true
		command -p touch -a -d @0 "$__r2d_stdin" 2>/dev/null
	fi
}

# __r2d_status RC: sets __r2d_rc to the command's exit status, and
# __r2d_pipes to the exit statuses of its last pipeline when it had more
# than one program ("" otherwise), from RC and what the generated code
# captured in __r2d_ps ("$? ${PIPESTATUS[*]}" after the command). As with
# set -o pipefail, a pipeline fails when one of its programs does (the
# rightmost that failed), except a program before the last that SIGPIPE
# ended (141): the reader stopped reading, as `| head` does.
__r2d_status() {
	__r2d_rc=$1
	__r2d_pipes=
	[ -n "$__r2d_ps" ] || return 0
	local -a st
	local i n
	# shellcheck disable=SC2206 # the statuses are numbers
	st=($__r2d_ps)
	__r2d_rc=${st[0]}
	n=$((${#st[@]} - 1))
	[ "$n" -gt 1 ] || return 0
	__r2d_pipes="${st[*]:1}"
	[ "$__r2d_rc" = 0 ] && [ "${st[n]}" = 0 ] || return 0
	for ((i = n - 1; i >= 1; i--)); do
		if [ "${st[i]}" != 0 ] && [ "${st[i]}" != 141 ]; then
			__r2d_rc=${st[i]}
			return 0
		fi
	done
}

# __r2d_begin: before the command of the step in __r2d_step.
__r2d_begin() {
	__r2d_save
	__r2d_cur=${__r2d_step[id]}
	__r2d_runaway=0
	__r2d_ps=
	__r2d_pipes=
	__r2d_input
	__r2d_emit "${__r2d_step[record]}"
	builtin printf '[readme2demo] %s $ %s\n' "${__r2d_step[where]}" "${__r2d_step[exec]%%$'\n'*}"
	[ -e "$__r2d_work/reserve" ] || __r2d_reserve
	[ ! -e "$__r2d_work/timedout" ] || command -p rm -f "$__r2d_work/timedout"
	__r2d_outfile
	__r2d_snap
	__r2d_wd=
	if [ "${__r2d_step[timeout]}" -gt 0 ]; then
		# The watchdog: after the timeout it kills everything that appeared
		# since the command began (not the session, not earlier background
		# jobs), and keeps doing so until the command ends.
		(
			builtin trap - EXIT
			exec </dev/null >/dev/null 2>&1
			builtin trap 'exit 0' TERM
			__r2d_sleep "${__r2d_step[timeout]}"
			builtin : >|"$__r2d_work/timedout"
			while builtin :; do
				__r2d_sweep $$ "$BASHPID"
				__r2d_sleep 0.5
			done
		) &
		__r2d_wd=$!
	fi
	__r2d_restore
	__r2d_clock
	__r2d_t0=$__r2d_ms
}

# __r2d_stop_watchdog ends the watchdog with SIGKILL: a TERM trap waits
# while the watchdog sits in its timed read (bash defers the trap until the
# read returns), so the runner would wait as long as the command's timeout;
# the watchdog holds nothing that needs a clean exit.
__r2d_stop_watchdog() {
	if [ -n "$__r2d_wd" ]; then
		builtin kill -KILL "$__r2d_wd" 2>/dev/null
		builtin wait "$__r2d_wd" 2>/dev/null
		__r2d_wd=
	fi
}

# __r2d_matches: compares the output file with ${__r2d_step[expect]} line by line,
# trailing white space and trailing blank lines ignored; an expected line
# that is exactly "..." matches any number of lines. Returns 0 on a match.
__r2d_matches() {
	local -a exp act
	local line i=0 j=0 star=-1 mark=0
	while IFS= builtin read -r line || [ -n "$line" ]; do
		exp+=("${line%"${line##*[![:space:]]}"}")
	done <<<"${__r2d_step[expect]}"
	while IFS= builtin read -r line || [ -n "$line" ]; do
		act+=("${line%"${line##*[![:space:]]}"}")
	done <"$__r2d_out"
	while [ "${#exp[@]}" -gt 0 ] && [ -z "${exp[${#exp[@]}-1]}" ]; do builtin unset 'exp[${#exp[@]}-1]'; done
	while [ "${#act[@]}" -gt 0 ] && [ -z "${act[${#act[@]}-1]}" ]; do builtin unset 'act[${#act[@]}-1]'; done
	while [ "$j" -lt "${#act[@]}" ]; do
		if [ "$i" -lt "${#exp[@]}" ] && [ "${exp[i]}" = "..." ]; then
			star=$i
			i=$((i + 1))
			mark=$j
		elif [ "$i" -lt "${#exp[@]}" ] && [ "${exp[i]}" = "${act[j]}" ]; then
			i=$((i + 1))
			j=$((j + 1))
		elif [ "$star" -ge 0 ]; then
			i=$((star + 1))
			mark=$((mark + 1))
			j=$mark
		else
			return 1
		fi
	done
	while [ "$i" -lt "${#exp[@]}" ] && [ "${exp[i]}" = "..." ]; do i=$((i + 1)); done
	[ "$i" -eq "${#exp[@]}" ]
}

# __r2d_record_end RC OUTFILE TIMED_OUT SHELL_EXITED: writes the end record,
# and decides whether the run goes on: it does when the step may fail
# (${__r2d_step[pass]} is empty) or the facts are those it asks for, written
# as Go writes them (facts in internal/runner/runner.go); never after the
# shell ended. Why the command failed is for Go to say.
__r2d_record_end() {
	local dur=$((${__r2d_t1:-0} - ${__r2d_t0:-0})) mismatch=false facts
	if [ "$2" != /dev/null ]; then __r2d_encode "$2"; else
		__r2d_head=
		__r2d_tail=
		__r2d_omit=0
	fi
	if [ "${__r2d_step[check]}" = 1 ] && [ "$3" = false ] && [ "$4" = false ] && ! __r2d_matches; then
		mismatch=true
	fi
	__r2d_json "$__r2d_lost"
	__r2d_emit "{\"type\":\"end\",\"id\":\"$__r2d_cur\",\"exit_code\":$1,\"pipe_status\":[${__r2d_pipes// /,}],\"duration_ms\":$dur,\"timed_out\":$3,\"shell_exited\":$4,\"runaway\":${__r2d_runaway:-0},\"output_mismatch\":$mismatch,\"stdin_read\":$__r2d_read,\"output_lost\":\"$__r2d_j\",\"output_omitted\":$__r2d_omit,\"output_head_b64\":\"$__r2d_head\",\"output_tail_b64\":\"$__r2d_tail\"}"
	builtin printf '[readme2demo] %s -> exit %s (%s ms)\n' "${__r2d_step[where]}" "$1" "$dur"
	facts="exit=$1 timed_out=$3 runaway=${__r2d_runaway:-0} output_mismatch=$mismatch"
	if [ "$4" = true ] || { [ -n "${__r2d_step[pass]}" ] && [ "$facts" != "${__r2d_step[pass]}" ]; }; then
		__r2d_stopped=1
	fi
}

# __r2d_end RC: after a foreground command.
__r2d_end() {
	local rc timed=false
	__r2d_clock
	__r2d_t1=$__r2d_ms
	__r2d_save
	__r2d_stop_watchdog
	__r2d_status "$1"
	rc=$__r2d_rc
	__r2d_was_read
	__r2d_runaway=0
	if [ -e "$__r2d_work/timedout" ]; then
		timed=true
		rc=124
		# What the command left behind (a fork bomb's orphans) goes too,
		# before the runner needs to fork again.
		__r2d_sweep $$
	else
		# A command that returned but left a swarm of processes behind (a
		# fork bomb that backgrounds itself) is stopped here, before the
		# runner needs to fork again; a few daemons are fine. A swarm that
		# has just begun is small, and on a loaded machine it grows slowly:
		# look again while the count grows (a daemon's workers stop growing
		# at once), up to five seconds.
		__r2d_new $$
		# shellcheck disable=SC2086 # count the pids
		builtin set -- $__r2d_found
		local seen=-1 looks=0
		while [ "$#" -gt "$seen" ] && [ "$#" -gt 0 ] && [ "$#" -le "$__r2d_runaway_max" ] && [ "$looks" -lt 16 ]; do
			seen=$#
			looks=$((looks + 1))
			__r2d_sleep 0.3
			__r2d_new $$
			# shellcheck disable=SC2086
			builtin set -- $__r2d_found
		done
		if [ "$#" -gt "$__r2d_runaway_max" ]; then
			__r2d_runaway=$#
			__r2d_sweep $$
		fi
	fi
	__r2d_checkroom
	__r2d_record_end "$rc" "$__r2d_out" "$timed" false
	local id=$__r2d_cur
	__r2d_cur=
	if [ "$__r2d_stopped" = 1 ]; then
		__r2d_emit "{\"type\":\"stop\",\"id\":\"$id\"}"
		__r2d_finish
	fi
	__r2d_restore
}

# __r2d_enter: the cwd hint; cd to ${__r2d_step[cwd]} (relative to the
# repository), remembering where the session was. Fails, with a message in
# the output, when it cannot be entered.
__r2d_enter() {
	__r2d_prevwd=$PWD
	local d=${__r2d_step[cwd]}
	case "$d" in /*) ;; *) d="$__r2d_workspace/$d" ;; esac
	builtin cd -- "$d" 2>/dev/null || {
		builtin printf 'readme2demo: cwd hint: cannot enter %s\n' "${__r2d_step[cwd]}"
		return 1
	}
}

# __r2d_leave: back to where the session was before the cwd hint.
__r2d_leave() {
	if [ -n "$__r2d_prevwd" ]; then
		builtin cd -- "$__r2d_prevwd" 2>/dev/null || true
		__r2d_prevwd=
	fi
	return 0
}

# __r2d_background PID: wait until ${__r2d_step[ready]} succeeds (or, with
# no readiness check, two seconds), the job dies, or
# ${__r2d_step[ready_timeout]} seconds pass.
__r2d_background() {
	local pid=$1 ready=${__r2d_step[ready]} limit=${__r2d_step[ready_timeout]} rc='' timed=false deadline
	__r2d_save
	__r2d_bg_ids="$__r2d_bg_ids $__r2d_cur"
	__r2d_bg_pids="$__r2d_bg_pids $pid"
	eval "__r2d_bg_pid_$__r2d_cur=$pid"
	eval "__r2d_bg_out_$__r2d_cur=\$__r2d_out"
	if [ -z "$ready" ]; then limit=2; fi
	__r2d_clock
	deadline=$((__r2d_ms + limit * 1000))
	while builtin :; do
		if ! builtin kill -0 "$pid" 2>/dev/null; then
			builtin wait "$pid"
			rc=$?
			if [ -n "$ready" ] && [ "$rc" = 0 ] && ! (eval "$ready") </dev/null >/dev/null 2>&1; then rc=1; fi
			break
		fi
		if [ -n "$ready" ]; then
			if command -v timeout >/dev/null 2>&1; then
				command -p timeout 10 bash -c "$ready" </dev/null >/dev/null 2>&1 && {
					rc=0
					break
				}
			else
				(eval "$ready") </dev/null >/dev/null 2>&1 && {
					rc=0
					break
				}
			fi
		fi
		__r2d_clock
		if [ "$__r2d_ms" -ge "$deadline" ]; then
			if [ -n "$ready" ]; then
				rc=124
				timed=true
			else
				rc=0
			fi
			break
		fi
		__r2d_sleep 0.5
	done
	__r2d_clock
	__r2d_t1=$__r2d_ms
	__r2d_record_end "$rc" "$__r2d_out" "$timed" false
	local id=$__r2d_cur
	__r2d_cur=
	if [ "$__r2d_stopped" = 1 ]; then
		__r2d_emit "{\"type\":\"stop\",\"id\":\"$id\"}"
		__r2d_finish
	fi
	__r2d_restore
}

# __r2d_bgstart: the output file of the background job about to start (its
# own, since the next command's output must not overwrite it).
__r2d_bgstart() {
	if [ "$__r2d_out" != /dev/null ]; then
		__r2d_out="${__r2d_out%/*}/bg$__r2d_cur"
		{ builtin : >|"$__r2d_out"; } 2>/dev/null || __r2d_out=/dev/null
	fi
}

# __r2d_finish: stop background jobs, write the summary, exit.
__r2d_finish() {
	builtin set +euo pipefail
	__r2d_done=1
	__r2d_stop_watchdog
	local id pid out
	for id in $__r2d_bg_ids; do
		eval "pid=\${__r2d_bg_pid_$id}"
		eval "out=\${__r2d_bg_out_$id}"
		__r2d_tree "$pid"
		__r2d_kill "$pid $__r2d_found"
		builtin wait "$pid" 2>/dev/null
		if [ "$out" != /dev/null ]; then __r2d_encode "$out"; else
			__r2d_head=
			__r2d_tail=
			__r2d_omit=0
		fi
		__r2d_emit "{\"type\":\"background_output\",\"id\":\"$id\",\"output_omitted\":$__r2d_omit,\"output_head_b64\":\"$__r2d_head\",\"output_tail_b64\":\"$__r2d_tail\"}"
	done
	# Anything else the README left running.
	__r2d_tree $$
	__r2d_kill "$__r2d_found"
	__r2d_clock
	__r2d_emit "{\"type\":\"summary\",\"duration_ms\":$((__r2d_ms - __r2d_run_t0)),\"cost_usd\":0}"
	command -p rm -rf "$__r2d_work" 2>/dev/null
	if [ "$__r2d_stopped" = 1 ]; then
		builtin printf '[readme2demo] stopped\n'
		exit 1
	fi
	builtin printf '[readme2demo] done\n'
	exit 0
}

# A README command that ends the shell (exit, set -e) ends the run there.
# Only the runner's own shell: a subshell of a README command (a fork
# bomb's, one that cannot fork) exits with the trap it inherited, and must
# not write records.
__r2d_on_exit() {
	local rc=$?
	[ "$__r2d_done" = 1 ] && return
	[ "${BASHPID:-$$}" = "$$" ] || return
	builtin set +euo pipefail
	if [ -n "$__r2d_cur" ]; then
		__r2d_clock
		__r2d_t1=$__r2d_ms
		__r2d_stop_watchdog
		__r2d_record_end "$rc" "$__r2d_out" false true
		__r2d_emit "{\"type\":\"stop\",\"id\":\"$__r2d_cur\"}"
	fi
	__r2d_finish
}
builtin trap __r2d_on_exit EXIT
builtin cd "$__r2d_workspace" || {
	__r2d_emit "$__r2d_no_workspace"
	__r2d_stopped=1
	__r2d_finish
}
# A program the README builds in the checkout (`go build`, `make`) runs by
# the name the README gives it, as a person would run ./tool: the
# checkout, its bin/ and build/ come last on PATH, after what is installed.
export PATH="${PATH:-/usr/bin:/bin}:$__r2d_workspace:$__r2d_workspace/bin:$__r2d_workspace/build"
