#!/usr/bin/env bash
# bench/ad: the ADBench GMM gradient (issue 23) — hand-written C (clang-14
# -O3), PyTorch (Debian's python3-torch, float64, one thread, autograd) and
# Mim (bench/ad/gmm.mim; today by forward mode, one %autodiff.jvp per
# parameter: reverse mode over memory is not there yet, docs/autodiff.md)
# on the same inputs, each gradient checked against the C one. Not a test.
#   bench/ad/run.sh [MIM]          (default: build/bin/mim)
# SIZES="d,k,n ..." (default "10,25,1000 64,50,10000"); MIM_MAX_PARAMS
# (default 5000): the Mim forward-mode gradient is skipped above it.
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
for s in $sizes; do
    IFS=, read -r d k n <<<"$s"
    np=$((k + 2 * k * d + k * d * (d - 1) / 2))
    echo "== d=$d k=$k n=$n ($np parameters)"
    if [ "$np" -le "$max_params" ]; then ./gmm "$d" "$k" "$n" mim grad dump; else ./gmm "$d" "$k" "$n" mim dump; echo "Mim    gradient skipped (forward mode would take $np evaluations)"; fi
    "$py" "$here/gmm.py" || true
done
