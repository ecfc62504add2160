#!/usr/bin/env bash
# bench-pull.sh — what a released sandbox image costs to pull and extract, with its layers
# gzip-compressed (a buildx push's default, what the release pushed so far) and zstd-compressed
# (a buildx push with compression=zstd), side by side (docs/benchmarks.md, "Pulling an image").
#
#   scripts/bench-pull.sh [IMAGE]          # default readme2demo-sandbox-keyless:test, 3 rounds each
#   RUNS=5 COMPRESSIONS="zstd gzip" scripts/bench-pull.sh IMAGE
#
# For each compression, scripts/releaseserve pushes IMAGE into its in-process registry on
# 127.0.0.1 (on top of a tiny layer of its own, so that the daemon holds none of the pushed
# layers and every pull downloads and extracts all of them, as on a fresh runner); each round
# removes the pulled image and times `docker pull` of it by digest. A daemon older than Docker 23
# cannot pull zstd layers (it fails with "Error processing tar file ... unexpected EOF"): there
# the zstd pull is reported as not possible, not timed.
#
# Then the part of the extraction that the format decides: the image's layers (docker save)
# compressed both ways (gzip -6 and zstd -3, the default levels of a buildx push), each layer in
# turn decompressed to nothing by scripts/layercat (the Go decompressors dockerd uses) or unpigz
# (what dockerd runs for gzip when it is on its PATH); and, for scale, the layers decompressed
# (zstd) into `tar -x` on the disk that holds /var/lib/docker, as dockerd extracts a layer. The
# rounds alternate the formats. Needs Go, Docker, jq, gzip, zstd, pigz; the image is never
# pulled from anywhere else.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
IMAGE=${1:-readme2demo-sandbox-keyless:test}
RUNS=${RUNS:-3}
COMPRESSIONS=${COMPRESSIONS:-gzip zstd}
reg=127.0.0.1:5056
work=$(mktemp -d)
server=
cleanup() { [ -z "$server" ] || kill "$server" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
go build -o "$work/releaseserve" ./scripts/releaseserve
ms() { echo $(( $(date +%s%N) / 1000000 )); }
docker image inspect "$IMAGE" --format 'image: {{.Id}}, {{.Size}} bytes uncompressed'
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %6s %14s %10s\n' compression round compressed-MB pull-ms
major=$(docker version --format '{{.Server.Version}}' | cut -d. -f1)
for comp in $COMPRESSIONS; do
	if [ "$comp" = zstd ] && [ "$major" -lt 23 ]; then
		echo "zstd: not pulled: this daemon (Docker $(docker version --format '{{.Server.Version}}')) cannot pull zstd layers (Docker 23 or later can)"
		continue
	fi
	log=$work/$comp.log
	mkdir -p "$work/$comp"
	"$work/releaseserve" -registry "$reg" -assets 127.0.0.1:0 -compression "$comp" \
		-manifest "$work/$comp/sandbox-images.json" -dist "$work/$comp" -image "keyless=$IMAGE" >"$log" 2>&1 &
	server=$!
	until grep -q "release assets on" "$log" 2>/dev/null; do
		kill -0 "$server" 2>/dev/null || { cat "$log" >&2; exit 1; }
		sleep 1
	done
	ref=$(sed -n 's/.* as \([^ ]*@sha256:[0-9a-f]*\): .*/\1/p' "$log")
	mb=$(sed -n 's/.*: \([0-9]*\) MB compressed.*/\1/p' "$log")
	for i in $(seq 1 "$RUNS"); do
		docker image rm -f "$ref" >/dev/null 2>&1 || true
		t0=$(ms)
		docker pull -q "$ref" >/dev/null
		t1=$(ms)
		printf '%-12s %6d %14s %10d\n' "$comp" "$i" "$mb" $((t1 - t0))
	done
	docker image rm -f "$ref" >/dev/null 2>&1 || true
	kill "$server"
	wait "$server" 2>/dev/null || true
	server=
done

echo
echo "the decompression alone, and the extraction for scale: every layer, in order"
go build -o "$work/layercat" ./scripts/layercat
mkdir -p "$work/save" "$work/layers"
docker save "$IMAGE" | tar -x -C "$work/save"
n=0
for l in $(jq -r '.[0].Layers[]' "$work/save/manifest.json"); do
	n=$((n + 1))
	gzip -6 -c "$work/save/$l" >"$work/layers/$n.gz"
	zstd -q -3 -c "$work/save/$l" >"$work/layers/$n.zst"
done
rm -rf "$work/save"
size() { du -cb "$work"/layers/*."$1" | tail -1 | cut -f1; }
echo "$n layers: gzip $(($(size gz) / 1000000)) MB, zstd $(($(size zst) / 1000000)) MB"
decompress() { # FORMAT: every layer through its decompressor, in order, into nothing
	local l
	for l in $(seq 1 "$n"); do
		case $1 in
		gzip) "$work/layercat" gzip <"$work/layers/$l.gz" ;;
		unpigz) unpigz -c <"$work/layers/$l.gz" ;;
		zstd) "$work/layercat" zstd <"$work/layers/$l.zst" ;;
		esac >/dev/null
	done
}
untar() { # every uncompressed layer into tar -x, in order, into one fresh directory
	local l dir=$work/extract
	rm -rf "$dir"
	mkdir -p "$dir"
	for l in $(seq 1 "$n"); do
		"$work/layercat" zstd <"$work/layers/$l.zst" | tar -x -C "$dir" --no-same-owner
	done
}
printf '%-24s %6s %8s\n' step round ms
for i in $(seq 1 "$RUNS"); do
	for f in gzip unpigz zstd; do
		t0=$(ms)
		decompress "$f"
		t1=$(ms)
		printf '%-24s %6d %8d\n' "decompress $f" "$i" $((t1 - t0))
	done
	t0=$(ms)
	untar
	t1=$(ms)
	printf '%-24s %6d %8d\n' "zstd into tar -x" "$i" $((t1 - t0))
done
rm -rf "$work/extract"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
