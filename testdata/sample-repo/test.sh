#!/bin/sh
# Checks greet.py's output; exits non-zero on the first mismatch.
set -eu
cd "$(dirname "$0")"
check() {
	want="$1"; shift
	got="$(python3 greet.py "$@")"
	if [ "$got" != "$want" ]; then
		echo "FAIL: greet.py $*: got '$got', want '$want'" >&2
		exit 1
	fi
	echo "ok: greet.py $*"
}
check "Hello, World!" World
check "HELLO, WORLD!" --loud World
echo "all tests passed"
