#!/usr/bin/env python3
"""Checks the documentation: runs every code block of docs/*.md and checks
that every link of docs/*.md and README.md stays inside the repository.

    check_docs.py blocks --root REPO --mim BUILD/bin/mim --work DIR [FILE.md ...]
    check_docs.py links  --root REPO

The fence-info convention (docs/doc-blocks.md describes it for writers):

  ```mim                 a complete Mim file; `mim FILE -o -` must succeed
  ```mim run             also compiled to LLVM (--output-ll), linked by
                         clang-14 and run: exit code 0 (or exit=N) and, if the
                         next block is ```text output, exactly that stdout
  ```mim print           the next ```text output block is what `mim FILE -o -`
                         prints, header lines (.import/.mim/plugin) dropped and
                         the gid digits of names (x_123) not compared
  ```mim error           mim must fail; the next ```text output block is
                         contained in its stderr (file name shown as FILE)
  ```c                   a C translation unit: compiled (-std=c17 -Wall
                         -Wextra -Wpedantic -Werror) against include/, the
                         build's generated headers and the work directory
  ```c run               also linked with libmim and run (as mim run)
  ```c main              the statements of a main function (its #include
                         lines go first), linked with libmim and run
  ```sh run              run by bash -e in the work directory; the next
                         ```text output block, if any, is its exact stdout
                         (gid digits of names not compared, as for print)
  ```LANG fragment: WHY  not run; the reason is mandatory
  ```text                never run (grammar, output shown for reading)

Attributes (key=value, shell-quoted): file=NAME writes the block to NAME in
the work directory before anything runs it (later sh blocks use it);
opt=N sets mim's -O level; args="..." adds mim options; link="..." adds
clang options (e.g. -lm); exit=N the expected exit code of a run.

Blocks of one document run in order in one work directory that contains
`build` (the build directory under test) and links to the repository's
top-level entries, so commands read as they would from the repository root.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

FENCE = re.compile(r"^(\s*)```(.*)$")


class Block:
    def __init__(self, doc, line, info, text):
        self.doc, self.line, self.text = doc, line, text
        words = shlex.split(info.split(":", 1)[0]) if "fragment" in info else shlex.split(info)
        self.reason = info.split(":", 1)[1].strip() if "fragment" in info and ":" in info else ""
        self.lang = words[0] if words else ""
        self.flags = {w for w in words[1:] if "=" not in w}
        self.attrs = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        self.expected = None  # the following ```text output block

    def where(self):
        return f"{self.doc}:{self.line}"


def parse_blocks(path, rel):
    """Fenced blocks of a Markdown file, in order; an indented fence is
    closed by a fence of the same indentation."""
    blocks, cur, indent, lines = [], None, "", []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if cur is None:
                if m:
                    cur, indent, lines = (n, m.group(2).strip()), m.group(1), []
            elif m and m.group(2).strip() == "" and m.group(1) == indent:
                blocks.append(Block(rel, cur[0], cur[1], "\n".join(lines) + "\n"))
                cur = None
            else:
                lines.append(line[len(indent):] if line.startswith(indent) else line)
    if cur is not None:
        blocks.append(Block(rel, cur[0], "unterminated", ""))
    return blocks


def indented_blocks(path):
    """Line numbers of indented code blocks (four spaces after a blank line,
    outside lists and fences): they would escape the check, so they are
    errors; write a fence instead."""
    found, fenced, inlist, prev = [], False, False, ""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced:
                if re.match(r"^\s*([*+-]|\d+\.)\s", line):
                    inlist = True
                elif line.strip() and not line.startswith(" "):
                    inlist = False
                if line.startswith("    ") and line.strip() and not prev.strip() and not inlist:
                    found.append(n)
            prev = line
    return found


def attach_outputs(blocks, errors):
    """Gives every ```text output block to the runnable block before it."""
    kept = []
    for b in blocks:
        if b.lang == "text" and "output" in b.flags:
            prev = kept[-1] if kept else None
            if prev is None or prev.expected is not None or not runnable(prev):
                errors.append(f"{b.where()}: 'text output' block without a runnable block before it")
            else:
                prev.expected = b.text
        else:
            kept.append(b)
    return kept


def runnable(b):
    return (b.lang == "mim" and "fragment" not in b.flags) or \
           (b.lang == "sh" and "run" in b.flags) or (b.lang == "c" and "fragment" not in b.flags)


def run(cmd, cwd, env, stdin=None, timeout=300):
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, input=stdin, shell=isinstance(cmd, str),
                          executable="/bin/bash" if isinstance(cmd, str) else None)


def norm_lines(text):
    return "\n".join(line.rstrip() for line in text.strip("\n").split("\n"))


def norm_gids(text):
    """Output with the gid digits of printed names (x_123) hidden."""
    return re.sub(r"_[0-9]+", "_N", norm_lines(text))


def norm_print(text):
    """mim's printed program without header lines, gid digits hidden."""
    keep = [l for l in text.split("\n") if not l.startswith((".import ", ".mim/plugin "))]
    return re.sub(r"_[0-9]+", "_N", norm_lines("\n".join(keep)))


class Checker:
    def __init__(self, args):
        self.root = os.path.realpath(args.root)
        self.mim = os.path.realpath(args.mim)
        self.build = os.path.dirname(os.path.dirname(self.mim))
        self.work = os.path.realpath(args.work)
        self.clang = args.clang
        self.errors = []
        cache = os.path.join(self.build, "CMakeCache.txt")
        sanitize = os.path.exists(cache) and "MIM_SANITIZE:BOOL=ON" in open(cache).read()
        # C code linked with an instrumented libmim needs the sanitizer runtimes.
        self.cflags_link = ["-fsanitize=address,undefined"] if sanitize else []
        self.env = dict(os.environ)
        self.env["PATH"] = os.pathsep.join([os.path.join(self.build, "bin"), self.env.get("PATH", "/usr/bin:/bin")])
        self.env.pop("MIM_PLUGIN_PATH", None)

    def fail(self, b, msg, detail=""):
        self.errors.append(f"{b.where()}: {b.lang} block: {msg}" + (("\n" + detail.rstrip()) if detail else ""))

    def workdir(self, doc):
        d = os.path.join(self.work, re.sub(r"[^A-Za-z0-9_.-]", "_", doc))
        subprocess.run(["rm", "-rf", d], check=True)
        os.makedirs(d)
        os.symlink(self.build, os.path.join(d, "build"))
        for e in os.listdir(self.root):
            if e not in ("build",) and not e.startswith(".") and not e.startswith("build"):
                os.symlink(os.path.join(self.root, e), os.path.join(d, e))
        return d

    def check_doc(self, path):
        rel = os.path.relpath(path, self.root)
        for n in indented_blocks(path):
            self.errors.append(f"{rel}:{n}: indented code block: write it as a fenced block (```LANG ...)")
        blocks = attach_outputs(parse_blocks(path, rel), self.errors)
        d = self.workdir(rel)
        for i, b in enumerate(blocks):
            self.check_block(b, d, i)
        return len(blocks)

    def check_block(self, b, d, i):
        if b.lang == "" or b.lang == "unterminated":
            return self.fail(b, "a fence needs a language (```mim, ```c, ```sh run, ```text, or LANG fragment: reason)")
        if "fragment" in b.flags:
            if not b.reason:
                self.fail(b, "'fragment' needs a reason: ```LANG fragment: why it cannot run")
            return
        if "file" in b.attrs:
            with open(os.path.join(d, b.attrs["file"]), "w", encoding="utf-8") as f:
                f.write(b.text)
        if b.lang == "text":
            return
        if b.lang == "mim":
            return self.check_mim(b, d, i)
        if b.lang == "c":
            return self.check_c(b, d, i)
        if b.lang == "sh":
            if "run" not in b.flags:
                return self.fail(b, "shell blocks are ```sh run or ```sh fragment: reason")
            return self.check_sh(b, d)
        self.fail(b, f"unknown language '{b.lang}' (use LANG fragment: reason for code that is not run)")

    def check_mim(self, b, d, i):
        name = b.attrs.get("file", f"block{i}.mim")
        src = os.path.join(d, name)
        if "file" not in b.attrs:
            with open(src, "w", encoding="utf-8") as f:
                f.write(b.text)
        args = [self.mim, name, "-O", b.attrs.get("opt", "2")] + shlex.split(b.attrs.get("args", ""))
        if "error" in b.flags:
            r = run(args + ["-o", "/dev/null"], d, self.env)
            if r.returncode == 0:
                return self.fail(b, "mim accepted a block marked 'error'")
            if r.returncode != 1 or "internal error" in r.stderr:
                # an error in the program is exit 1; anything else is a crash or a bug
                return self.fail(b, f"mim crashed or reported an internal error (exit {r.returncode})", r.stderr)
            got = r.stderr.replace(name, "FILE")
            if b.expected is not None and norm_lines(b.expected) not in norm_lines(got):
                self.fail(b, "diagnostics differ", "expected:\n" + b.expected + "got:\n" + got)
            return
        if "run" in b.flags:
            ll, exe = f"block{i}.ll", f"./block{i}"
            r = run(args + ["--output-ll", ll], d, self.env)
            if r.returncode != 0:
                return self.fail(b, f"mim failed (exit {r.returncode})", r.stderr)
            r = run([self.clang, "-Wno-override-module", ll, "-o", exe] + shlex.split(b.attrs.get("link", "")), d, self.env)
            if r.returncode != 0:
                return self.fail(b, "clang failed on the emitted LLVM", r.stderr)
            return self.check_run(b, [exe], d)
        r = run(args + ["-o", "-"], d, self.env)
        if r.returncode != 0:
            return self.fail(b, f"mim failed (exit {r.returncode})", r.stderr)
        if "print" in b.flags:
            if b.expected is None:
                return self.fail(b, "'mim print' needs a following ```text output block")
            if norm_print(b.expected) != norm_print(r.stdout):
                self.fail(b, "printed program differs", "expected:\n" + b.expected + "got:\n" + r.stdout)
        elif b.expected is not None:
            self.fail(b, "a ```text output block follows a block that is only compiled (use mim run or mim print)")

    def check_c(self, b, d, i):
        name = b.attrs.get("file", f"block{i}.c")
        src = os.path.join(d, name)
        if "file" not in b.attrs:
            text = b.text
            if "main" in b.flags:
                # statements of a main function: the #include lines go first
                lines = text.split("\n")
                head = [l for l in lines if l.startswith("#include")]
                body = [l for l in lines if not l.startswith("#include")]
                text = "\n".join(head + ["#include <stdio.h>", "int main(void) {"] + body + ["    return 0;", "}", ""])
            with open(src, "w", encoding="utf-8") as f:
                f.write(text)
        inc = ["-I", os.path.join(self.root, "include"), "-I", os.path.join(self.build, "include"), "-I", d]
        flags = ["-std=c17", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
        if "run" not in b.flags and "main" not in b.flags:
            r = run([self.clang, *flags, *inc, "-fsyntax-only", name], d, self.env)
            if r.returncode != 0:
                self.fail(b, "does not compile", r.stderr)
            return
        if "main" in b.flags:
            flags.append("-Wno-unused-variable")  # a snippet names values to explain them
        lib = os.path.join(self.build, "lib")
        exe = f"./cblock{i}"
        r = run([self.clang, *flags, *inc, *self.cflags_link, name, "-o", exe, "-L", lib, "-lmim",
                 "-Wl,-rpath," + lib] + shlex.split(b.attrs.get("link", "")), d, self.env)
        if r.returncode != 0:
            return self.fail(b, "does not compile or link", r.stderr)
        self.check_run(b, [exe], d)

    def check_sh(self, b, d):
        r = run("set -e\n" + b.text, d, self.env)
        if r.returncode != int(b.attrs.get("exit", "0")):
            return self.fail(b, f"exit {r.returncode}", r.stdout + r.stderr)
        self.compare(b, r.stdout)

    def check_run(self, b, cmd, d):
        r = run(cmd, d, self.env)
        want = int(b.attrs.get("exit", "0"))
        if r.returncode != want:
            return self.fail(b, f"program exited {r.returncode}, expected {want}", r.stdout + r.stderr)
        self.compare(b, r.stdout)

    def compare(self, b, got):
        if b.expected is not None and norm_gids(b.expected) != norm_gids(got):
            self.fail(b, "output differs", "expected:\n" + b.expected + "got:\n" + got)


# --- links -------------------------------------------------------------------

MDLINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A file mentioned in prose: a path ending in a documentation or source suffix.
PATHREF = re.compile(r"(?<![\w/.-])((?:[\w.-]+/)*[\w.-]+\.md)(?![\w/-])")
# A mention of a document of the reference's specification, which is not in
# the repository, is plain text introduced by "spec"/"specification".
SPECREF = re.compile(r"\b(?:spec|specification)(?:'s)?,?$", re.I)


def slug(title):
    """GitHub's anchor of a heading."""
    t = re.sub(r"[`*_]", "", title.strip().lower())
    t = re.sub(r"[^\w\- ]", "", t)
    return t.replace(" ", "-")


def anchors(path):
    out, seen, fenced = set(), {}, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.lstrip().startswith("```"):
                fenced = not fenced
            if not fenced and line.startswith("#"):
                s = slug(line.lstrip("#"))
                n = seen.get(s, 0)
                seen[s] = n + 1
                out.add(s if n == 0 else f"{s}-{n}")
    return out


def prose(path):
    """(line number, text) of the lines outside fenced blocks."""
    fenced = False
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if not fenced:
                yield n, line.rstrip("\n")


def check_links(root):
    root = os.path.realpath(root)
    docs = sorted(os.path.join(root, "docs", f) for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    errors, count = [], 0
    for path in docs + [os.path.join(root, "README.md")]:
        rel, here = os.path.relpath(path, root), os.path.dirname(path)
        prev = ""
        for n, line in prose(path):
            for m in MDLINK.finditer(line):
                count += 1
                target = m.group(1)
                if re.match(r"^[a-z]+:", target):
                    continue
                file, _, anchor = target.partition("#")
                full = os.path.realpath(os.path.join(here, file)) if file else path
                if not full.startswith(root + os.sep) or not os.path.exists(full):
                    errors.append(f"{rel}:{n}: link '{target}' does not point to a file of the repository")
                elif anchor and full.endswith(".md") and anchor not in anchors(full):
                    errors.append(f"{rel}:{n}: link '{target}': no section '#{anchor}' in {os.path.relpath(full, root)}")
            for m in re.finditer(r"(?<![\w.])/(?:work|home|root)/[^\s`)]*", line):
                errors.append(f"{rel}:{n}: absolute path '{m.group(0).rstrip('.,;:')}' outside the repository")
            text = MDLINK.sub(lambda m: " " * len(m.group(0)), line)
            for m in PATHREF.finditer(text):
                ref = m.group(1)
                if re.match(r"^(X|NAME|FILE|[a-z]\.)", ref) or "NAME" in ref or "<" in ref:
                    continue  # placeholders such as NAME.mim
                count += 1
                if any(os.path.exists(os.path.join(base, ref)) for base in (here, root)):
                    continue
                if ref.startswith("build/"):
                    continue  # generated by the build
                before = (prev + " " + text[:m.start()]).rstrip(" `(")
                if SPECREF.search(before):
                    continue
                errors.append(f"{rel}:{n}: '{ref}' is not a file of the repository "
                              "(link a section of docs/, or write 'spec NAME.md' for the reference's specification)")
            prev = line
    return errors, count


def main():
    p = argparse.ArgumentParser()
    p.add_argument("what", choices=["blocks", "links"])
    p.add_argument("--root", required=True)
    p.add_argument("--mim")
    p.add_argument("--work")
    p.add_argument("--clang", default="clang-14")
    p.add_argument("files", nargs="*")
    a = p.parse_intermixed_args()
    if a.what == "links":
        errors, count = check_links(a.root)
        print(f"{count} links and file references checked")
    else:
        c = Checker(a)
        docs = a.files or sorted(os.path.join(c.root, "docs", f) for f in os.listdir(os.path.join(c.root, "docs"))
                                 if f.endswith(".md"))
        count = sum(c.check_doc(os.path.realpath(f)) for f in docs)
        errors = c.errors
        print(f"{count} code blocks in {len(docs)} documents checked")
    for e in errors:
        print("error: " + e)
    print(f"{len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
