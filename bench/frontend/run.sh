#!/usr/bin/env bash
# Front-end benchmark: time `mim FILE --bootstrap -O0 -o /dev/null` (parse, bind,
# emit/type-check, print) on generated programs of growing size and print a table.
#
# Usage: bench/frontend/run.sh [path/to/mim]        (default: build/bin/mim)
# Environment knobs:
#   SIZES="1000 10000 100000"   declaration counts
#   REPS=3                      repetitions per size; the best (minimum) wall time counts
#   SEED=1                      generator seed
#   GEN_FLAGS=                  extra gen.py flags, e.g. --basic
#   TIMEOUT=600                 seconds allowed per run
#   KEEP=1                      keep the generated programs (their directory is printed)
# Builds nothing. Exit status: 0 if every run succeeded, 1 otherwise, 2 on bad usage.

set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
mim=${1:-$root/build/bin/mim}
sizes=${SIZES:-1000 10000 100000}
reps=${REPS:-3}
seed=${SEED:-1}
limit=${TIMEOUT:-600}

if [[ ! -x $mim ]]; then
    echo "run.sh: no executable mim at '$mim' (build it first, or pass its path)" >&2
    exit 2
fi
have_gnu_time=0
if [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    have_gnu_time=1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/mim-bench.XXXXXX")
if [[ ${KEEP:-0} == 1 ]]; then
    echo "programs kept in $tmp"
else
    trap 'rm -rf "$tmp"' EXIT
fi

# run_once FILE: runs mim once; sets $secs (wall seconds), $rss (KiB or "-"), $rc.
run_once() {
    local file=$1 start end
    start=$EPOCHREALTIME
    if ((have_gnu_time)); then
        timeout "$limit" /usr/bin/time -f %M -o "$tmp/rss" \
            "$mim" "$file" --bootstrap -O0 -o /dev/null 2>"$tmp/err" >/dev/null
        rc=$?
    else
        timeout "$limit" "$mim" "$file" --bootstrap -O0 -o /dev/null 2>"$tmp/err" >/dev/null
        rc=$?
    fi
    end=$EPOCHREALTIME
    secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')
    rss=-
    # GNU time prepends "Command exited with non-zero status" on failure; take the last line.
    if ((have_gnu_time)) && [[ -s $tmp/rss ]]; then rss=$(tail -n 1 "$tmp/rss"); fi
}

# Process start-up cost, to judge the smallest size: best of $reps runs of `mim --version`.
startup=
for ((r = 0; r < reps; r++)); do
    start=$EPOCHREALTIME
    "$mim" --version >/dev/null 2>&1
    t=$(awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }')
    if [[ -z $startup ]] || awk -v a="$t" -v b="$startup" 'BEGIN { exit !(a < b) }'; then startup=$t; fi
done

echo "mim: $mim   (start-up, mim --version: ${startup}s)"
echo "command: mim FILE --bootstrap -O0 -o /dev/null   (best of $reps, seed $seed${GEN_FLAGS:+, gen $GEN_FLAGS})"
echo
printf '%8s %8s %8s %10s %10s %12s %10s\n' N decls MiB "best s" "us/decl" "t/t(prev)" "RSS MiB"

status=0
prev_t='' prev_n=''
for n in $sizes; do
    # The file stem is the plugin name in bootstrap mode, so keep it a valid one (<= 8 chars).
    file=$tmp/b$n.mim
    # shellcheck disable=SC2086  # GEN_FLAGS is a word list on purpose
    if ! python3 "$here/gen.py" "$n" --seed "$seed" ${GEN_FLAGS:-} -o "$file"; then
        echo "run.sh: gen.py failed for N=$n" >&2
        exit 2
    fi
    decls=$(head -n 1 "$file" | sed 's/[^0-9]//g')
    mib=$(awk -v b="$(wc -c <"$file")" 'BEGIN { printf "%.1f", b / 1048576 }')

    best='' best_rss=- failed=0
    for ((r = 0; r < reps; r++)); do
        run_once "$file"
        if ((rc != 0)); then
            failed=1
            break
        fi
        if [[ -z $best ]] || awk -v a="$secs" -v b="$best" 'BEGIN { exit !(a < b) }'; then
            best=$secs
        fi
        if [[ $rss != - ]] && { [[ $best_rss == - ]] || ((rss > best_rss)); }; then best_rss=$rss; fi
    done

    if ((failed)); then
        why="exit $rc"
        ((rc == 124)) && why="timeout ${limit}s"
        printf '%8s %8s %8s %10s   FAILED (%s): %s\n' "$n" "$decls" "$mib" - "$why" \
            "$(grep -m 1 . "$tmp/err" | cut -c 1-100)"
        status=1
        prev_t='' prev_n=''
        continue
    fi

    per=$(awk -v t="$best" -v d="$decls" 'BEGIN { printf "%.2f", t * 1e6 / d }')
    ratio=-
    if [[ -n $prev_t ]]; then
        ratio=$(awk -v a="$best" -v b="$prev_t" 'BEGIN { printf "%.2f", a / b }')
        (( n != 10 * prev_n )) && ratio="$ratio(x$((n / prev_n)))"
    fi
    rss_mib=-
    [[ $best_rss != - ]] && rss_mib=$(awk -v k="$best_rss" 'BEGIN { printf "%.1f", k / 1024 }')
    printf '%8s %8s %8s %10s %10s %12s %10s\n' "$n" "$decls" "$mib" "$best" "$per" "$ratio" "$rss_mib"
    prev_t=$best prev_n=$n
done

echo
echo "t/t(prev): time ratio to the previous size (sizes x10 apart: ~10 = linear, ~100 = quadratic)."
((have_gnu_time)) || echo "peak RSS not measured: GNU time (/usr/bin/time) not available."
exit $status
