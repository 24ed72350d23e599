#!/usr/bin/env python3
"""Start-up benchmark of `mim` (see README.md): spawns each command RUNS times,
interleaved, and prints wall time (median and minimum), CPU time and page
faults per command, with ratios against `mim --version` and /bin/true from
the same run. Measures; asserts nothing."""
import os
import shutil
import statistics
import sys
import tempfile
import time


def spawn(argv, env=None):
    """Wall seconds, user+sys seconds and minor faults of one run of argv."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        t0 = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env or os.environ,
                             file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1),
                                           (os.POSIX_SPAWN_DUP2, devnull, 2)])
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("failed: " + " ".join(argv))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_minflt


def main():
    mim, runs = os.path.abspath(sys.argv[1]), int(sys.argv[2])
    true = shutil.which("true") or "/bin/true"
    tmp = tempfile.mkdtemp(prefix="mim-startup-")
    empty = os.path.join(tmp, "e.mim")
    with open(empty, "w") as f:
        f.write("\n")
    cmds = [
        ("/bin/true", [true]),
        ("mim --version", [mim, "--version"]),
        ("mim e.mim -O0", [mim, empty, "-O0"]),
        ("mim e.mim -O0 -p opt", [mim, empty, "-O0", "-p", "opt"]),
        ("mim e.mim -O1", [mim, empty, "-O1"]),
        ("mim e.mim  (default -O2)", [mim, empty]),
        ("  same, MIM_KEEP_HELPERS=1", [mim, empty]),
        ("  same, MIM_NO_PRELUDE=1", [mim, empty]),
    ]
    # The last rows visit the unused interface helpers in every pass manager
    # (docs/optimizer.md) and emit the plugin interfaces instead of loading
    # their prelude images (docs/startup.md): the gains, in the same run.
    envs = {"  same, MIM_KEEP_HELPERS=1": dict(os.environ, MIM_KEEP_HELPERS="1"),
            "  same, MIM_NO_PRELUDE=1": dict(os.environ, MIM_NO_PRELUDE="1")}
    for name, argv in cmds:  # warm-up (page cache, dynamic loader cache)
        spawn(argv, envs.get(name))
    res = {name: [] for name, _ in cmds}
    for _ in range(runs):
        for name, argv in cmds:
            res[name].append(spawn(argv, envs.get(name)))
    os.remove(empty)
    os.rmdir(tmp)

    def med(name, k):
        return statistics.median(r[k] for r in res[name])

    t_true, t_ver = med("/bin/true", 0), med("mim --version", 0)
    print(f"mim: {mim}   ({runs} runs per command, interleaved; medians unless noted)")
    print(f"{'command':<26} {'wall ms':>8} {'min ms':>7} {'cpu ms':>7} {'faults':>7}"
          f" {'/--version':>10} {'/true':>6} {'-true ms':>8}")
    for name, _ in cmds:
        wall, cpu, flt = med(name, 0), med(name, 1), med(name, 2)
        low = min(r[0] for r in res[name])
        print(f"{name:<26} {wall * 1e3:8.2f} {low * 1e3:7.2f} {cpu * 1e3:7.2f} {flt:7.0f}"
              f" {wall / t_ver:10.2f} {wall / t_true:6.2f} {(wall - t_true) * 1e3:8.2f}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at the end: {load:.2f} (figures are only comparable on an idle machine)")


if __name__ == "__main__":
    main()
