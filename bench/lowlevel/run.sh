#!/usr/bin/env bash
# Low-level benchmarks: each program exists in Mim (NAME.mim, an extern `run`
# compiled by `mim --output-ll`) and in C (NAME.c, the same algorithm); both
# are linked with the same driver NAME_main.c by clang-14 -O3 and run once.
# Prints the Mim and C times, their ratio, and the geometric mean of the
# ratios; fails if the two versions print different results.
#   bench/lowlevel/run.sh [BUILD_DIR]      (default: build)
#   MIM_OPT=-O1 (default) or MIM_OPT=-O2 selects mim's optimization level.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
mim="$build/bin/mim"
clang=${CLANG:-clang-14}
opt=${MIM_OPT:--O1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s%N; }
printf '%-16s %10s %10s %8s\n' benchmark "mim (s)" "C (s)" mim/C
ratios=()
for name in nbody fannkuch-redux mandelbrot spectral-norm matmul; do
    "$mim" "$here/$name.mim" $opt --output-ll "$work/$name.ll"
    "$clang" -O3 "$work/$name.ll" "$here/${name}_main.c" -o "$work/$name-mim" -lm
    "$clang" -O3 "$here/$name.c" "$here/${name}_main.c" -o "$work/$name-c" -lm
    t0=$(now); "$work/$name-mim" > "$work/$name-mim.out"
    t1=$(now); "$work/$name-c" > "$work/$name-c.out"
    t2=$(now)
    if ! cmp -s "$work/$name-mim.out" "$work/$name-c.out"; then
        echo "$name: the Mim and C versions print different results" >&2
        exit 1
    fi
    ratio=$(awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) 'BEGIN { printf "%.3f", a / b }')
    ratios+=("$ratio")
    awk -v n="$name" -v a=$((t1 - t0)) -v b=$((t2 - t1)) -v r="$ratio" \
        'BEGIN { printf "%-16s %10.3f %10.3f %8s\n", n, a / 1e9, b / 1e9, r }'
done
printf '%s\n' "${ratios[@]}" | awk '{ s += log($1); n++ } END { printf "geometric mean of mim/C: %.3f\n", exp(s / n) }'
