#!/usr/bin/env bash
# compare-helpers.sh MIM ROOT: every test and example program prints the same
# -O2 output (`-o -`, messages included) whether the optimizer drops unused
# interface helpers before the pipeline (the default) or visits them in every
# pass manager up to internal_cleanup (MIM_KEEP_HELPERS=1), once the numbers
# after `_` (gids, output-format.md §4) are masked. Prints "N compared, N differ".
# Not compared: tests/lit/regex/normalize.mim and pattern.mim. %regex.disj renormalizes the
# operands of its own results into another order at every cleanup (regex.md
# §3.3: non-ranges reversed, rebuilt bottom-up), so unlowered disjunctions
# print differently after a different number of cleanups, and visiting the
# helpers makes internal_cleanup change the program, hence one cleanup more
# (docs/regex.md).
set -u
mim=$1 root=$2
mask() { sed -E 's/_[0-9]+/_#/g'; }
n=0 d=0
for f in $(find "$root/tests/lit" "$root/examples" -name '*.mim' -not -path '*/Inputs/*' -not -path '*/regex/normalize.mim' -not -path '*/regex/pattern.mim' | sort); do
    x=$(ASAN_OPTIONS=detect_leaks=0 timeout 300 "$mim" "$f" -o - 2>&1 | mask)
    y=$(ASAN_OPTIONS=detect_leaks=0 MIM_KEEP_HELPERS=1 timeout 300 "$mim" "$f" -o - 2>&1 | mask)
    n=$((n + 1))
    if [[ "$x" != "$y" ]]; then
        d=$((d + 1))
        echo "differs: $f"
        diff <(echo "$x") <(echo "$y") | head -8
    fi
done
echo "$n compared, $d differ"
