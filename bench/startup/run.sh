#!/usr/bin/env bash
# Start-up time of `mim` on an empty program, as ratios against `mim --version`
# and /bin/true measured in the same run (see README.md). Usage:
#     bench/startup/run.sh [path/to/mim]        (default: build/bin/mim)
# Settings: RUNS=40 (runs per command, interleaved).
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
mim=${1:-$root/build/bin/mim}
[ -x "$mim" ] || { echo "no mim binary at $mim (build first)" >&2; exit 1; }
command -v python3 >/dev/null || { echo "python3 missing" >&2; exit 1; }
exec python3 "$root/bench/startup/startup.py" "$mim" "${RUNS:-40}"
