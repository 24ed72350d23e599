#!/usr/bin/env bash
# Optimizer benchmark (not a test): time of the default -O2 pipeline on
# generated programs of N functions (gen.py), next to the same program at
# -O0 (front end only) measured in the same run; reports the optimizer's
# share per function and the growth factor between sizes (linear = ~10x).
#   bench/opt/run.sh [path/to/mim]     SIZES (default "1000 10000 100000"),
#                                      REPS (default 3: the fastest run counts;
#                                      on a shared machine single runs vary by
#                                      up to 40%)
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mim=${1:-$root/build/bin/mim}
sizes=${SIZES:-1000 10000 100000}
reps=${REPS:-3}
[[ -x $mim ]] || { echo "run.sh: no mim at '$mim'" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mim-bench-opt.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# Fastest of $reps runs, in ms (FAIL if a run fails).
ms_of() {
    local s e ms best=""
    for ((r = 0; r < reps; ++r)); do
        s=$(date +%s%N)
        "$@" >/dev/null 2>&1 || { echo FAIL; return; }
        e=$(date +%s%N)
        ms=$(( (e - s) / 1000000 ))
        [[ -z $best || $ms -lt $best ]] && best=$ms
    done
    echo "$best"
}

printf '%8s %10s %10s %10s %12s %10s\n' N "-O0 ms" "-O2 ms" "opt ms" "opt us/fn" "t/t(prev)"
prev=""
for n in $sizes; do
    python3 "$here/gen.py" "$n" > "$tmp/p$n.mim"
    o0=$(ms_of "$mim" "$tmp/p$n.mim" -O0 -o /dev/null)
    o2=$(ms_of "$mim" "$tmp/p$n.mim" -o /dev/null)
    if [[ $o0 == FAIL || $o2 == FAIL ]]; then echo "N=$n FAILED"; continue; fi
    opt=$((o2 - o0))
    ratio=${prev:+$(echo "scale=2; $opt / $prev" | bc)}
    printf '%8d %10d %10d %10d %12.1f %10s\n' "$n" "$o0" "$o2" "$opt" "$(echo "scale=1; $opt * 1000 / $n" | bc)" "${ratio:--}"
    prev=$opt
done
