#!/usr/bin/env bash
# Closure benchmark (docs/clos.md): chain.mim (chains of continuations that
# capture their index and the previous continuation, built with the clos
# plugin) against chain.c (function pointers + explicit heap environments),
# both linked with chain_main.c by clang-14 -O3 and run once. Prints the two
# times and their ratio; fails if the results differ.
#   bench/clos/run.sh [BUILD_DIR]      (default: build)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
clang=${CLANG:-clang-14}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
now() { date +%s%N; }
"$build/bin/mim" "$here/chain.mim" -O2 --output-ll "$work/chain.ll"
"$clang" -O3 -Wno-override-module "$work/chain.ll" "$here/chain_main.c" -o "$work/chain-mim"
"$clang" -O3 "$here/chain.c" "$here/chain_main.c" -o "$work/chain-c"
t0=$(now); "$work/chain-mim" > "$work/mim.out"
t1=$(now); "$work/chain-c" > "$work/c.out"
t2=$(now)
if ! cmp -s "$work/mim.out" "$work/c.out"; then
    echo "chain: the Mim and C versions print different results" >&2
    exit 1
fi
awk -v a=$((t1 - t0)) -v b=$((t2 - t1)) \
    'BEGIN { printf "%-10s %10s %10s %8s\n%-10s %10.3f %10.3f %8.3f\n", "benchmark", "mim (s)", "C (s)", "mim/C", "chain", a / 1e9, b / 1e9, a / b }'
