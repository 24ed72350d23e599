#!/usr/bin/env bash
# Closure benchmark (docs/clos.md): chain.mim (chains of continuations that
# capture their index and the previous continuation, built with the clos
# plugin) against chain.c (function pointers + explicit heap environments),
# both linked with chain_main.c by clang-14 -O3. The two programs run
# alternately RUNS times (default 5); prints the median times and their
# ratio; fails if the results differ.
#   [RUNS=n] bench/clos/run.sh [BUILD_DIR]      (default: build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
clang=${CLANG:-clang-14}
runs=${RUNS:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s%N; }
"$build/bin/mim" "$here/chain.mim" -O2 --output-ll "$work/chain.ll"
"$clang" -O3 "$work/chain.ll" "$here/chain_main.c" -o "$work/chain-mim"
"$clang" -O3 "$here/chain.c" "$here/chain_main.c" -o "$work/chain-c"
: > "$work/mim.t"
: > "$work/c.t"
for _ in $(seq "$runs"); do
    t0=$(now); "$work/chain-mim" > "$work/mim.out"
    t1=$(now); "$work/chain-c" > "$work/c.out"
    t2=$(now)
    echo $((t1 - t0)) >> "$work/mim.t"
    echo $((t2 - t1)) >> "$work/c.t"
    if ! cmp -s "$work/mim.out" "$work/c.out"; then
        echo "chain: the Mim and C versions print different results" >&2
        exit 1
    fi
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
a=$(median "$work/mim.t")
b=$(median "$work/c.t")
awk -v a="$a" -v b="$b" -v n="$runs" \
    'BEGIN { printf "%-10s %10s %10s %8s  (medians of %d alternate runs)\n%-10s %10.3f %10.3f %8.3f\n", "benchmark", "mim (s)", "C (s)", "mim/C", n, "chain", a / 1e9, b / 1e9, a / b }'
