#!/usr/bin/env bash
# bench/ad: the ADBench GMM gradient (issue 23) — hand-written C (clang-14
# -O3), PyTorch (Debian's python3-torch, float64, one thread, autograd) and
# Mim (bench/ad/gmm.mim: reverse mode, %autodiff.vjp, one backward sweep;
# with FWD=1 also forward mode, one %autodiff.jvp per parameter) on the same
# inputs, each gradient checked against the C one; a table at the end (the
# best of 5 runs of each). PyTorch runs in two formulations (gmm.py): batched
# ("PyTorch", the faster) and shaped like ADBench's ("PyTorch-ADBench", the
# peer of the paper's figures). Not a test.
#   bench/ad/run.sh [MIM]          (default: build/bin/mim)
# SIZES="d,k,n ..." (default "10,25,1000 64,50,10000"); MIM_MAX_PARAMS
# (default 5000): the forward-mode gradient (FWD=1) is skipped above it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mim=${1:-$here/../../build/bin/mim}
clang=${CLANG:-clang-14}
sizes=${SIZES:-"10,25,1000 64,50,10000"}
max_params=${MIM_MAX_PARAMS:-5000}
# Debian's torch is a module of Debian's python3 (not of another python3 on PATH)
py=/usr/bin/python3
if ! "$py" -c "import torch" 2>/dev/null; then
    echo "installing python3-torch (apt-get)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-torch >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$mim" "$here/gmm.mim" --output-ll "$work/gmm.ll"
"$clang" -O3 -w "$work/gmm.ll" "$here/gmm.c" -o "$work/gmm" -lm
cd "$work"
table="| d, k, n | parameters | C objective | C gradient | Mim objective | Mim gradient (reverse) | PyTorch gradient | PyTorch-ADBench gradient | Mim/C | PyTorch/Mim | PyTorch-ADBench/Mim |"
table="$table
|---|---|---|---|---|---|---|---|---|---|---|"
for s in $sizes; do
    IFS=, read -r d k n <<<"$s"
    np=$((k + 2 * k * d + k * d * (d - 1) / 2))
    echo "== d=$d k=$k n=$n ($np parameters)"
    modes="mim rev dump"
    if [ "${FWD:-0}" = 1 ] && [ "$np" -le "$max_params" ]; then modes="$modes grad"; fi
    ./gmm "$d" "$k" "$n" $modes | tee out.txt
    "$py" "$here/gmm.py" | tee -a out.txt || true
    row=$(awk -v d="$d" -v k="$k" -v n="$n" -v np="$np" '
        /^C /{co=$4; cg=$7} /^Mim .*objective agrees/{mo=$4} /reverse mode/{mg=$3}
        /^PyTorch /{pg=$4} /^PyTorch-ADBench /{ag=$4}
        function ms(t) { return t == "" ? "–" : sprintf("%.1f ms", 1000 * t) }
        function ratio(t) { return t == "" ? "–" : sprintf("%.2f", t / mg) }
        END{printf "| %s, %s, %s | %s | %.1f ms | %.1f ms | %.1f ms | %.1f ms | %s | %s | %.2f | %s | %s |", d, k, n, np,
            1000 * co, 1000 * cg, 1000 * mo, 1000 * mg, ms(pg), ms(ag), mg / cg, ratio(pg), ratio(ag)}' out.txt)
    table="$table
$row"
done
echo
echo "$table"
