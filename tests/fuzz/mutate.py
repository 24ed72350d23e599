"""Mutation fuzzing of the front end and IR (not part of the test suite).

Takes the lit tests and plugin interfaces as seeds, mutates them with Mim
tokens, deletions and duplications, and runs a sanitizer build of `mim` on
each mutant. A problem is a crash, a sanitizer report, a hang (20 s), or a
failing run without an `error:` message; the mutant is saved in the current
directory. Every other mutant runs without `-P` (the default start-up path:
plugins next to the binary, prelude images), the others with
`-P plugins/` (interfaces read from the source tree).
Usage: tests/fuzz/mutate.py SEED COUNT [BUILD_DIR]   (default build-asan)
The last line is "done, N mutants (M without -P), problems: K"; exit 1 if K > 0.
"""
import re
import random, subprocess, glob, os, sys
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = sys.argv[3] if len(sys.argv) > 3 else os.path.join(ROOT, 'build-asan')
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
files = [f for f in glob.glob(ROOT + '/tests/lit/**/*.mim', recursive=True) if 'Inputs' not in f] + glob.glob(ROOT + '/plugins/*/*.mim')
srcs = [open(f, 'rb').read() for f in files]
toks = [b'(', b')', b'[', b']', b'{', b'}', b'<', b'>', b'<<', b'>>', b'\xc2\xab', b'\xe2\x80\xb9', b';', b',', b':', b'#', b'@', b'$', b'->', b'lam', b'con', b'fun', b'let', b'rec', b'and', b'where', b'end', b'ret', b'Cn', b'Fn', b'*', b'Nat', b'Idx', b'0', b'1_2', b'256I8', b'"s', b"'", b'%x.y', b'ins', b'_', b'bot', b'\xce\xbb', b' ', b'\n', b'Type', b'Univ', b'axm', b'as', b'0x1p3', b'2.5', b'\xff']
crashes = 0
env = dict(os.environ, ASAN_OPTIONS='detect_leaks=1:abort_on_error=1', UBSAN_OPTIONS='halt_on_error=1:abort_on_error=1:print_stacktrace=1')
for it in range(int(sys.argv[2]) if len(sys.argv) > 2 else 300):
    s = bytearray(random.choice(srcs))
    for _ in range(random.randint(1, 6)):
        op = random.random()
        pos = random.randint(0, len(s))
        if op < 0.4: s[pos:pos] = random.choice(toks)
        elif op < 0.7 and len(s) > 1: del s[pos:pos + random.randint(1, 8)]
        else:
            a = random.randint(0, len(s)); b = random.randint(a, min(len(s), a + 40))
            s[pos:pos] = s[a:b]
    open('in.mim', 'wb').write(s)
    plugdir = ['-P', ROOT + '/plugins'] if it % 2 else []
    args = [BUILD + '/bin/mim', 'in.mim'] + plugdir + ['-o', '/dev/null'] + random.choice([['--bootstrap', '-O0'], ['-O0'], ['-O1', '--bootstrap'], []])
    try:
        r = subprocess.run(args, capture_output=True, timeout=20, env=env)
    except subprocess.TimeoutExpired:
        crashes += 1; open(f'hang{it}.mim', 'wb').write(s); print('HANG', it, args); continue
    err = r.stderr.decode('utf-8', 'replace')
    # A sanitizer report by its own lines, not by words that the diagnostics
    # may quote from the (mutated) source line under an error.
    report = re.search(r'^==\d+==ERROR: |^SUMMARY: \w+Sanitizer|^\S+:\d+:\d+: runtime error: ', err, re.M)
    if r.returncode not in (0, 1) or report:
        crashes += 1; open(f'crash{it}.mim', 'wb').write(s); print('CRASH', it, r.returncode, err[-600:])
    elif r.returncode == 1 and 'error' not in err:
        crashes += 1; open(f'silent{it}.mim', 'wb').write(s); print('SILENT-FAIL', it, err[-300:])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
print('done, %d mutants (%d without -P), problems: %d' % (count, (count + 1) // 2, crashes))
sys.exit(1 if crashes else 0)
