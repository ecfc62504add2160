#!/usr/bin/env bash
# bench-keyless.sh — a keyless `readme2demo run` of testdata/sample-repo against
# a bare `docker run --rm --network none IMAGE true` in the same image, side by
# side, and where the run's time goes (--timings). See docs/benchmarks.md,
# "Where a keyless run's time goes".
#
#   scripts/bench-keyless.sh                       # 5 rounds, readme2demo-base:test
#   RUNS=9 IMAGE=readme2demo-base:test scripts/bench-keyless.sh
#   BIN=/tmp/old/readme2demo scripts/bench-keyless.sh   # another build (an older commit)
#
# Each round times the bare container, then the run, back to back (the
# machine may be shared), wall clock from the shell; the ratio is taken per
# round. The table's last line is the medians; the --timings of the round
# with the median run follow. The image is never pulled or built. Needs Go
# (unless BIN is given) and Docker.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
IMAGE=${IMAGE:-readme2demo-base:test}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
BIN=${BIN:-}
if [ -z "$BIN" ]; then
	BIN=$work/readme2demo
	go build -o "$BIN" ./cmd/readme2demo
fi
ms() { echo $(( $(date +%s%N) / 1000000 )); }
# A first, untimed pair: the image's layers in the page cache.
docker run --rm --network none "$IMAGE" true
"$BIN" run --engine markdown --network none --image "$IMAGE" --out "$work/out" testdata/sample-repo >/dev/null 2>&1 || true
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %12s %10s %7s\n' round docker-run-ms run-ms ratio
: >"$work/rows"
for i in $(seq 1 "$RUNS"); do
	t0=$(ms)
	docker run --rm --network none "$IMAGE" true
	t1=$(ms)
	# The sample's drifted step fails the run (exit 1): that is the demo.
	"$BIN" run --engine markdown --network none --image "$IMAGE" --out "$work/out" --timings testdata/sample-repo 2>"$work/stderr.$i" || true
	t2=$(ms)
	bare=$((t1 - t0)) run=$((t2 - t1))
	ratio=$(awk -v a="$run" -v b="$bare" 'BEGIN { printf "%.2f", a / b }')
	printf '%-6s %12d %10d %7s\n' "$i" "$bare" "$run" "$ratio"
	echo "$i $bare $run $ratio" >>"$work/rows"
done
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf '%-6s %12s %10s %7s\n' median "$(cut -d' ' -f2 "$work/rows" | median)" "$(cut -d' ' -f3 "$work/rows" | median)" "$(cut -d' ' -f4 "$work/rows" | median)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
mid=$(sort -k3,3n "$work/rows" | sed -n "$(((RUNS + 1) / 2))p" | cut -d' ' -f1)
echo "timings of round $mid (the median run):"
sed -n '/where the time went:/,$p' "$work/stderr.$mid"
