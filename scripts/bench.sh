#!/usr/bin/env bash
# bench.sh — readme2demo parse against jq and wc -l on the same generated
# transcripts, at several sizes, and the ratios. See docs/benchmarks.md.
#
#   scripts/bench.sh                 # 64 128 256 512 MiB
#   SIZES="64 128" scripts/bench.sh
#
# The transcript is made of copies, with fresh ids, of three real Claude Code
# 2.1.332 captures (testdata/fixtures/claude-code/real-2.1.332-{success,failures,bigoutput}.jsonl):
# commands that succeed, fail with several exit codes, and print a 1.2 MB output.
# jq does only the command extraction:
#   jq -c 'select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | .input.command'
# readme2demo does the full parse: pairing, exit codes, truncation, markers,
# redaction, and writes command_log.json. Each tool runs RUNS times (default 3);
# the best wall time counts. Needs jq and GNU time (/usr/bin/time).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SIZES="${SIZES:-64 128 256 512}"
RUNS="${RUNS:-3}"
WORK="${WORK:-$(mktemp -d)}"
trap 'rm -rf "$WORK"' EXIT

for tool in jq /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench: $tool is needed (apt-get install -y jq time)" >&2; exit 2; }
done

go build -o "$WORK/readme2demo" ./cmd/readme2demo
cat testdata/fixtures/claude-code/real-2.1.332-{success,failures,bigoutput}.jsonl >"$WORK/fixture.jsonl"

# best_of CMD...: prints "wall cpu maxrss_kb" of the fastest of RUNS runs.
best_of() {
	local best="" i
	for ((i = 0; i < RUNS; i++)); do
		/usr/bin/time -f '%e %U %S %M' -o "$WORK/time" "$@" >/dev/null 2>"$WORK/err" || {
			echo "bench: $* failed: $(tail -c 300 "$WORK/err")" >&2
			exit 1
		}
		read -r wall user sys rss <"$WORK/time"
		local cpu
		cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.2f", u+s}')
		if [ -z "$best" ] || awk -v a="$wall" -v b="${best%% *}" 'BEGIN{exit !(a<b)}'; then
			best="$wall $cpu $rss"
		fi
	done
	echo "$best"
}

printf '%-6s | %-22s | %-22s | %-22s | %-14s | %s\n' "MiB" "wc -l (wall/cpu s)" "jq extract (wall/cpu s)" "readme2demo (wall/cpu s)" "r2d peak RSS" "jq÷r2d wall (cpu)"
for mb in $SIZES; do
	f="$WORK/t-$mb.jsonl"
	go run ./scripts/gentranscript -fixture "$WORK/fixture.jsonl" -mb "$mb" -o "$f" 2>/dev/null
	read -r wcw wcc _ < <(best_of wc -l "$f")
	read -r jqw jqc _ < <(best_of jq -c 'select(.type=="assistant") | .message.content[]? | select(.type=="tool_use") | .input.command' "$f")
	read -r rw rc rss < <(best_of "$WORK/readme2demo" parse --engine claude-code "$f")
	ratio=$(awk -v a="$jqw" -v b="$rw" -v c="$jqc" -v d="$rc" 'BEGIN{printf "%.1fx (%.1fx)", a/b, c/d}')
	printf '%-6s | %9s / %-10s | %9s / %-10s | %9s / %-10s | %8d MiB   | %s\n' "$mb" "$wcw" "$wcc" "$jqw" "$jqc" "$rw" "$rc" "$((rss / 1024))" "$ratio"
	rm -f "$f"
done
