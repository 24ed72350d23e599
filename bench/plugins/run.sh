#!/usr/bin/env bash
# Plugin benchmarks (not tests): start-up of `mim` with the standard plugins
# and a normalizer-heavy program, each reported next to a reference measured
# in the same run (`mim --version`: process start and libmim loading only).
#   bench/plugins/run.sh [path/to/mim]     (default build/bin/mim)
# Knobs: REPS (default 30) start-up repetitions, SIZES (default "1000 10000").
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mim=${1:-$root/build/bin/mim}
reps=${REPS:-30}
sizes=${SIZES:-1000 10000}
[[ -x $mim ]] || { echo "run.sh: no mim at '$mim'" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mim-bench-plugins.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Mean wall time in ms of `$@` over $reps runs (after one warm-up run).
mean_ms() {
    "$@" >/dev/null 2>&1
    local start end
    start=$(date +%s%N)
    for ((i = 0; i < reps; ++i)); do "$@" >/dev/null 2>&1; done
    end=$(date +%s%N)
    echo "scale=2; ($end - $start) / 1000000 / $reps" | bc
}

: > "$tmp/e.mim"
ref=$(mean_ms "$mim" --version)
o0=$(mean_ms "$mim" "$tmp/e.mim" -O0)
o2=$(mean_ms "$mim" "$tmp/e.mim")
printf 'start-up (mean of %d runs)\n' "$reps"
printf '  %-34s %8s ms\n' "mim --version (reference)" "$ref"
printf '  %-34s %8s ms  (%sx reference)\n' "mim empty.mim -O0 (compile only)" "$o0" "$(echo "scale=2; $o0 / $ref" | bc)"
printf '  %-34s %8s ms  (%sx reference)\n' "mim empty.mim (-O2: 7 libraries)" "$o2" "$(echo "scale=2; $o2 / $ref" | bc)"

echo "normalizer-heavy programs (plugin core; 12 core ops per function; -O0 -o /dev/null)"
prev=""
for n in $sizes; do
    python3 "$here/gen_normalize.py" "$n" > "$tmp/n$n.mim"
    s=$(date +%s%N)
    "$mim" "$tmp/n$n.mim" -O0 -o /dev/null || { echo "  N=$n FAILED"; continue; }
    e=$(date +%s%N)
    ms=$(( (e - s) / 1000000 ))
    ratio=${prev:+$(echo "scale=2; $ms / $prev" | bc)}
    printf '  N=%-7s %8d ms  %6.1f us/op  t/t(prev) %s\n' "$n" "$ms" "$(echo "scale=1; $ms * 1000 / ($n * 13)" | bc)" "${ratio:--}"
    prev=$ms
done
