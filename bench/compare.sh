#!/usr/bin/env bash
# Compares two mim binaries on the same inputs in one interleaved run (not a
# test): for each workload, RUNS samples of each binary are taken in turn
# (A, B, A, B, …); the medians of CPU time (user + sys) and of peak memory
# are printed with the ratio B/A. Use it to check every performance change
# against the previous build:
#   bench/compare.sh OLD_MIM [NEW_MIM]        (NEW_MIM default: build/bin/mim)
#   RUNS=5 (samples per binary and workload), SIZE=10000 (functions of the
#   generated programs), ONLY="fe-O0 opt-O2" (a subset of the workloads)
# Workloads: start-up (an empty program, -O2, repeated 200 times per sample),
# the front end (bench/frontend/gen.py and bench/opt/gen.py at -O0, no
# output), the optimizer (bench/opt/gen.py at -O2), and the back end (every
# bench/lowlevel program to LLVM at -O2, 20 times per sample).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
a=${1:?usage: bench/compare.sh OLD_MIM [NEW_MIM]}
b=${2:-$root/build/bin/mim}
runs=${RUNS:-5}
size=${SIZE:-10000}
only=${ONLY:-startup fe-O0 opt-O0 opt-O2 ll-O2}
for m in "$a" "$b"; do [ -x "$m" ] || { echo "compare.sh: no mim at '$m'" >&2; exit 2; }; done
work=$(mktemp -d "${TMPDIR:-/tmp}/mim-compare.XXXXXX")
trap 'rm -rf "$work"' EXIT

: > "$work/empty.mim"
python3 "$here/frontend/gen.py" "$size" --seed 1 -o "$work/fe.mim"
python3 "$here/opt/gen.py" "$size" > "$work/opt.mim"

# The command of a workload for binary $1, run $2 times (sh -c script).
workload() {
    local m=$1
    case $2 in
    startup) echo "i=0; while [ \$i -lt 200 ]; do '$m' '$work/empty.mim' || exit 1; i=\$((i+1)); done" ;;
    fe-O0) echo "'$m' '$work/fe.mim' --bootstrap -O0" ;;
    opt-O0) echo "'$m' '$work/opt.mim' -O0" ;;
    opt-O2) echo "'$m' '$work/opt.mim' -O2 -o /dev/null" ;;
    ll-O2) echo "i=0; while [ \$i -lt 20 ]; do for f in '$here'/lowlevel/*.mim; do '$m' \"\$f\" -O2 --output-ll /dev/null || exit 1; done; i=\$((i+1)); done" ;;
    *) echo "compare.sh: unknown workload '$2'" >&2; exit 2 ;;
    esac
}

# "cpu_seconds peak_KiB" of one sample (FAIL if the command fails).
sample() {
    if /usr/bin/time -f '%U %S %M' -o "$work/t" sh -c "$1" > /dev/null 2>&1; then
        awk '{ printf "%.3f %d\n", $1 + $2, $3 }' "$work/t"
    else
        echo FAIL
    fi
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "A: $a"
echo "B: $b"
echo "CPU seconds and peak MiB, median of $runs interleaved samples; size $size"
printf '%-8s %9s %9s %7s %9s %9s %7s\n' workload "A s" "B s" B/A "A MiB" "B MiB" B/A
for w in $only; do
    ca=$(workload "$a" "$w"); cb=$(workload "$b" "$w")
    : > "$work/a"; : > "$work/b"
    for _ in $(seq "$runs"); do
        sample "$ca" >> "$work/a"
        sample "$cb" >> "$work/b"
    done
    if grep -q FAIL "$work/a" "$work/b"; then printf '%-8s failed\n' "$w"; continue; fi
    ta=$(cut -d' ' -f1 "$work/a" | median); tb=$(cut -d' ' -f1 "$work/b" | median)
    ma=$(cut -d' ' -f2 "$work/a" | median); mb=$(cut -d' ' -f2 "$work/b" | median)
    awk -v w="$w" -v ta="$ta" -v tb="$tb" -v ma="$ma" -v mb="$mb" 'BEGIN {
        printf "%-8s %9.3f %9.3f %7.3f %9.1f %9.1f %7.3f\n", w, ta, tb, (ta > 0 ? tb / ta : 0), ma / 1024, mb / 1024, (ma > 0 ? mb / ma : 0) }'
done
