#!/usr/bin/env bash
# bench.sh — `readme2demo parse` against jq on the same generated transcripts,
# side by side, for every transcript shape. See docs/benchmarks.md.
#
#   scripts/bench.sh                              # every shape, 512 MiB, 5 rounds
#   SHAPES="claude-session codex" MB=128 RUNS=3 scripts/bench.sh
#   CALLGRIND=1 MB=8 scripts/bench.sh             # instructions executed, under valgrind
#   BIN=/tmp/old/readme2demo scripts/bench.sh     # another build of readme2demo (an older commit)
#   SHAPES= FIXTURES="claude-code:testdata/fixtures/claude-code/real-2.0.77-bigoutput.jsonl" scripts/bench.sh
#                                                 # any transcript repeated with fresh ids, as ENGINE:FILE
#   SHAPES= SYNTHETIC=claude-line MB=32 scripts/bench.sh
#                                                 # a made-up extreme (gentranscript -list-synthetic): one line of MB MiB
#   SHAPES=claude-sessionfile STRETCH=thinking=100000 scripts/bench.sh
#                                                 # the shapes' and fixtures' values of a key grown (gentranscript -stretch)
#
# Shapes (go run ./scripts/gentranscript -list): real transcripts of each
# engine repeated with fresh ids — Claude Code sessions of small commands,
# the same with 1.2 MB outputs, Codex, Gemini CLI, OpenHands events and
# OpenHands evaluation records. jq does only the command extraction of the
# issue it is measured against:
#   jq -c 'select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | .input.command'
# (on other engines' transcripts it finds nothing, but reads and decodes every
# record all the same). readme2demo does the full parse — pairing, exit codes,
# truncation, markers, outcome, redaction — and writes the whole
# command_log.json (to /dev/null).
#
# The machine may be shared: each round runs jq, then readme2demo, back to back,
# and the ratio is taken per round; the table shows medians over RUNS rounds
# (default 5), the load average before and after, and readme2demo's highest
# peak RSS. Needs jq, GNU time (/usr/bin/time) and Go.
#
# CALLGRIND=1 counts the instructions each tool executes instead
# (valgrind --tool=callgrind, one run each): a measure that does not move
# with the machine's load. Use a small MB: valgrind runs 50 times slower.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

MB="${MB:-512}"
RUNS="${RUNS:-5}"
WORK="${WORK:-$(mktemp -d)}"
trap 'rm -rf "$WORK"' EXIT
JQ_FILTER='select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | .input.command'

for tool in jq /usr/bin/time go; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is needed (apt-get install -y jq time)" >&2; exit 2; }
done

if [ -n "${BIN:-}" ]; then
	cp "$BIN" "$WORK/readme2demo"
else
	go build -o "$WORK/readme2demo" ./cmd/readme2demo
fi
go build -o "$WORK/gentranscript" ./scripts/gentranscript
declare -A engine runs
while IFS=$'\t' read -r name eng r _; do engine[$name]=$eng runs[$name]=$r; done < <("$WORK/gentranscript" -list)
SHAPES="${SHAPES-$("$WORK/gentranscript" -list | cut -f1 | tr '\n' ' ')}"
# SYNTHETIC adds rows for made-up extremes (one huge line, huge outputs).
declare -A synthetic
while IFS=$'\t' read -r name eng r _; do engine[$name]=$eng runs[$name]=$r; done < <("$WORK/gentranscript" -list-synthetic)
for name in ${SYNTHETIC:-}; do
	[ -n "${engine[$name]:-}" ] || { echo "bench: unknown synthetic shape $name" >&2; exit 2; }
	synthetic[$name]=1
	SHAPES="$SHAPES $name"
done
# FIXTURES adds rows for other transcripts, ENGINE:FILE each, named by the file.
declare -A fixture
for ef in ${FIXTURES:-}; do
	name=$(basename "${ef#*:}")
	engine[$name]=${ef%%:*} runs[$name]=one fixture[$name]=${ef#*:}
	SHAPES="$SHAPES $name"
done
# gen SHAPE FILE: writes MB MiB of SHAPE to FILE; its report on stderr.
gen() {
	if [ -n "${fixture[$1]:-}" ]; then
		"$WORK/gentranscript" -fixture "${fixture[$1]}" -stretch "${STRETCH:-}" -mb "$MB" -o "$2"
	elif [ -n "${synthetic[$1]:-}" ]; then
		"$WORK/gentranscript" -synthetic "$1" -mb "$MB" -o "$2"
	else
		"$WORK/gentranscript" -shape "$1" -stretch "${STRETCH:-}" -mb "$MB" -o "$2"
	fi
}

# timed NAME CMD...: runs CMD, output to /dev/null; appends "wall cpu rss_kb" to $WORK/NAME.
timed() {
	local name=$1
	shift
	/usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || {
		echo "bench: $* failed: $(tail -c 300 "$WORK/err")" >&2
		exit 1
	}
	read -r wall user sys rss <"$WORK/time"
	echo "$wall $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}') $rss" >>"$WORK/$name"
}

# median FILE COLUMN
median() { sort -g -k"$2","$2" "$1" | awk -v c="$2" '{v[NR]=$c} END{n=NR; if (n%2) print v[(n+1)/2]; else printf "%.3f\n", (v[n/2]+v[n/2+1])/2}'; }

if [ -n "${CALLGRIND:-}" ]; then
	command -v valgrind >/dev/null || { echo "bench: valgrind is needed (apt-get install -y valgrind)" >&2; exit 2; }
	# instructions CMD...: instructions executed by CMD, in millions.
	instructions() {
		valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
			awk '/refs:/{gsub(",","",$NF); printf "%.0f", $NF/1e6}'
	}
	printf '| shape | MiB | jq, million instructions | parse, million instructions | jq ÷ parse |\n| --- | --- | --- | --- | --- |\n'
	for shape in $SHAPES; do
		f="$WORK/t.jsonl"
		gen "$shape" "$f" 2>/dev/null
		out=()
		if [ "${runs[$shape]}" = several ]; then rm -rf "$WORK/runs" && out=(-o "$WORK/runs/"); fi
		jqi=$(instructions jq -c "$JQ_FILTER" "$f")
		# Go's asynchronous preemption signals upset callgrind; on one P
		# the count is steady (several Ps spin and park between batches,
		# which moves it by ±10 % from run to run).
		ri=$(GODEBUG=asyncpreemptoff=1 GOMAXPROCS=1 instructions "$WORK/readme2demo" parse --engine "${engine[$shape]}" "${out[@]}" "$f")
		awk -v s="$shape" -v mb="$MB" -v j="$jqi" -v r="$ri" 'BEGIN{printf "| %s | %d | %d | %d | **%.1f×** |\n", s, mb, j, r, j/r}'
	done
	exit 0
fi

echo "machine: $(nproc) cores, $(awk '/MemTotal/{printf "%d GiB", $2/1048576}' /proc/meminfo), $(go version | cut -d' ' -f3), $(jq --version)"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
printf '| shape | MiB | lines (median bytes) | commands | jq wall / CPU s | parse wall / CPU s | parse peak RSS | MB/s | commands/s | jq ÷ parse, wall (CPU) |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for shape in $SHAPES; do
	eng=${engine[$shape]:?unknown shape $shape}
	f="$WORK/t.jsonl"
	gen "$shape" "$f" 2>"$WORK/gen"
	read -r bytes lines median_line < <(sed -E 's/.*wrote ([0-9]+) bytes, ([0-9]+) lines \(median ([0-9]+) bytes\).*/\1 \2 \3/' "$WORK/gen")
	# A transcript of several runs (evaluation output) gives one log per run,
	# in a directory.
	out=()
	if [ "${runs[$shape]}" = several ]; then out=(-o "$WORK/runs/"); fi
	rm -rf "$WORK/runs" && mkdir -p "$WORK/runs"
	if [ "${runs[$shape]}" = several ]; then
		"$WORK/readme2demo" parse --engine "$eng" -o "$WORK/runs/" "$f"
		commands=$(cat "$WORK"/runs/*.json | grep -c '^      "status": ' || true)
	else
		"$WORK/readme2demo" parse --engine "$eng" -o "$WORK/log.json" "$f"
		commands=$(grep -c '^      "status": ' "$WORK/log.json" || true)
	fi
	rm -f "$WORK/jq" "$WORK/r2d" "$WORK/ratio"
	for ((i = 0; i < RUNS; i++)); do
		timed jq jq -c "$JQ_FILTER" "$f"
		timed r2d "$WORK/readme2demo" parse --engine "$eng" "${out[@]}" "$f"
		paste -d' ' <(tail -1 "$WORK/jq") <(tail -1 "$WORK/r2d") |
			awk '{printf "%.3f %.3f\n", $1/$4, $2/$5}' >>"$WORK/ratio"
	done
	jqw=$(median "$WORK/jq" 1) jqc=$(median "$WORK/jq" 2)
	rw=$(median "$WORK/r2d" 1) rc=$(median "$WORK/r2d" 2)
	rss=$(sort -g -k3,3 "$WORK/r2d" | tail -1 | awk '{printf "%d", $3/1024}')
	ratio=$(median "$WORK/ratio" 1) cratio=$(median "$WORK/ratio" 2)
	awk -v s="$shape" -v mb="$MB" -v l="$lines" -v ml="$median_line" -v c="$commands" -v jw="$jqw" -v jc="$jqc" \
		-v rw="$rw" -v rc="$rc" -v rss="$rss" -v b="$bytes" -v r="$ratio" -v cr="$cratio" 'BEGIN{
		printf "| %s | %d | %d (%d) | %d | %.2f / %.2f | %.2f / %.2f | %d MiB | %.0f | %.0f | **%.1f×** (%.1f×) |\n",
			s, mb, l, ml, c, jw, jc, rw, rc, rss, b/rw/1e6, c/rw, r, cr }'
	rm -f "$f" "$WORK/log.json"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
