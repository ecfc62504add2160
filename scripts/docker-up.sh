#!/usr/bin/env bash
# docker-up.sh — make sure a Docker daemon answers, starting one if needed.
#
# Idempotent: exits 0 at once when `docker info` already answers. Otherwise it
# installs Debian's docker.io when `dockerd` is missing, removes a stale pid file,
# starts `dockerd` in the background and waits for it.
#
# Env:
#   DOCKER_UP_TIMEOUT  seconds to wait for the daemon (default 60)
#   DOCKERD_LOG        where dockerd writes its log (default ${RUNNER_TEMP:-/tmp}/dockerd.log)
set -euo pipefail

log() { printf '[docker-up] %s\n' "$*" >&2; }

timeout_s="${DOCKER_UP_TIMEOUT:-60}"
dockerd_log="${DOCKERD_LOG:-${RUNNER_TEMP:-/tmp}/dockerd.log}"

if docker info >/dev/null 2>&1; then
	log "docker daemon already answers"
	exit 0
fi

as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v docker >/dev/null 2>&1 || { ! command -v dockerd >/dev/null 2>&1 && [ ! -x /usr/sbin/dockerd ]; }; then
	log "docker/dockerd not found: installing docker.io"
	as_root apt-get update
	as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io
fi
dockerd_bin="$(command -v dockerd || echo /usr/sbin/dockerd)"

# A daemon may already be starting (another caller, or a service manager): then wait
# for it instead of starting a second one. A pid file naming no live dockerd is stale.
pid_file=/var/run/docker.pid
pid="$(cat "$pid_file" 2>/dev/null || true)"
if [ -n "$pid" ] && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
	log "dockerd (pid $pid) is running; waiting for it to answer"
else
	if [ -e "$pid_file" ]; then
		log "removing stale $pid_file"
		as_root rm -f "$pid_file"
	fi
	mkdir -p "$(dirname "$dockerd_log")"
	log "starting $dockerd_bin (log: $dockerd_log)"
	if [ "$(id -u)" -eq 0 ]; then
		nohup "$dockerd_bin" >>"$dockerd_log" 2>&1 </dev/null &
	else
		sudo -b sh -c "exec '$dockerd_bin' >>'$dockerd_log' 2>&1 </dev/null"
	fi
fi

deadline=$((SECONDS + timeout_s))
while ! docker info >/dev/null 2>&1; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		log "ERROR: docker daemon did not answer within ${timeout_s}s; last lines of $dockerd_log:"
		tail -n 30 "$dockerd_log" >&2 || true
		exit 1
	fi
	sleep 1
done
log "docker daemon answers ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo '?'))"
