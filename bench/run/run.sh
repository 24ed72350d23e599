#!/usr/bin/env bash
# From Mim source to a finished run, three ways (docs/cli.md), wall time of
# the whole command, the minimum of REPS runs (not a test: asserts nothing):
#   run  : mim P --run                     (in-process JIT)
#   exe  : mim P --output-exe X && X       (clang-14 compiles and links)
#   ll   : mim P --output-ll X.ll && clang-14 -O2 X.ll -o X && X
# Usage: bench/run/run.sh [MIM]   (default build/bin/mim; REPS=5)
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
mim=${1:-$root/build/bin/mim}
reps=${REPS:-5}
clang=${CLANG:-clang-14}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
programs="examples/primes.mim tests/lit/ll/fib.mim tests/lit/ll/pow.mim tests/lit/ll/argv-calls.mim tests/lit/ll/paper-iter-run.mim"

best() { # the minimum wall time in ms of REPS runs of the command "$@"
    local min=
    for _ in $(seq "$reps"); do
        local t0 t1
        t0=$(date +%s%N)
        "$@" >/dev/null 2>&1 || true
        t1=$(date +%s%N)
        local ms=$(( (t1 - t0) / 1000000 ))
        if [ -z "$min" ] || [ "$ms" -lt "$min" ]; then min=$ms; fi
    done
    echo "$min"
}

printf '%-28s %8s %8s %8s\n' program "run ms" "exe ms" "ll ms"
for p in $programs; do
    [ -f "$root/$p" ] || continue
    src=$root/$p
    r=$(best "$mim" "$src" --run)
    e=$(best sh -c "\"$mim\" \"$src\" --output-exe \"$work/x\" && \"$work/x\"")
    l=$(best sh -c "\"$mim\" \"$src\" --output-ll \"$work/x.ll\" && $clang -O2 \"$work/x.ll\" -o \"$work/y\" && \"$work/y\"")
    printf '%-28s %8s %8s %8s\n' "$p" "$r" "$e" "$l"
done
