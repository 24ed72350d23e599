#!/usr/bin/env bash
# Low-level benchmarks: each program exists in Mim (NAME.mim, an extern `run`
# compiled by `mim --output-ll`) and in C (NAME.c, the same algorithm); both
# are linked with the same driver NAME_main.c by clang-14 -O3.
#
# Each version is first run once (the outputs must agree), then a repeat
# count k is chosen so that k back-to-back runs of the C version take at
# least MIN_TIME seconds of CPU time; a sample is the CPU time (user + sys)
# of k runs. RUNS samples of each version are taken interleaved (Mim, C,
# Mim, C, …) and the medians are compared. CPU time rather than wall time,
# because the machine is shared: the other jobs' time is not counted.
#   bench/lowlevel/run.sh [BUILD_DIR]      (default: build)
#   MIM_OPT=-O1 (default) or -O2; RUNS=5; MIN_TIME=1; ONLY="nbody matmul"
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mim="$build/bin/mim"
clang=${CLANG:-clang-14}
opt=${MIM_OPT:--O1}
runs=${RUNS:-5}
min_time=${MIN_TIME:-1}
names=${ONLY:-nbody fannkuch-redux mandelbrot spectral-norm matmul fasta binary-trees}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# CPU seconds (user + sys) of k runs of a binary.
cpu_of() {
    /usr/bin/time -f '%U %S' -o "$work/time" sh -c 'i=0; while [ $i -lt "$2" ]; do "$1" > /dev/null; i=$((i + 1)); done' _ "$1" "$2"
    awk '{ printf "%.3f\n", $1 + $2 }' "$work/time"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "mim $opt, clang -O3; CPU time of k runs, median of $runs interleaved samples"
printf '%-16s %4s %10s %10s %8s\n' benchmark k "mim (s)" "C (s)" mim/C
ratios=()
for name in $names; do
    "$mim" "$here/$name.mim" $opt --output-ll "$work/$name.ll"
    "$clang" -O3 "$work/$name.ll" "$here/${name}_main.c" -o "$work/$name-mim" -lm
    "$clang" -O3 "$here/$name.c" "$here/${name}_main.c" -o "$work/$name-c" -lm
    "$work/$name-mim" > "$work/$name-mim.out"
    "$work/$name-c" > "$work/$name-c.out"
    if ! cmp -s "$work/$name-mim.out" "$work/$name-c.out"; then
        echo "$name: the Mim and C versions print different results" >&2
        exit 1
    fi
    one=$(cpu_of "$work/$name-c" 1)
    k=$(awk -v t="$one" -v m="$min_time" 'BEGIN { k = (t > 0) ? int(m / t) + 1 : 10; print (k < 1) ? 1 : k }')
    : > "$work/m"; : > "$work/c"
    for _ in $(seq "$runs"); do
        cpu_of "$work/$name-mim" "$k" >> "$work/m"
        cpu_of "$work/$name-c" "$k" >> "$work/c"
    done
    tm=$(median < "$work/m"); tc=$(median < "$work/c")
    ratio=$(awk -v a="$tm" -v b="$tc" 'BEGIN { printf "%.3f", a / b }')
    ratios+=("$ratio")
    printf '%-16s %4d %10.3f %10.3f %8s\n' "$name" "$k" "$tm" "$tc" "$ratio"
done
printf '%s\n' "${ratios[@]}" | awk '{ s += log($1); n++; if ($1 > mx) mx = $1 } END { printf "geometric mean of mim/C: %.3f (largest %.3f)\n", exp(s / n), mx }'
