#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The GFP_NOFS left in a tree, site by site, and why each one stays.

    census_sites.py REASONS TREE     the markdown section (census.sh)
    census_sites.py selftest         check the parser on small inputs

REASONS (scripts/census-remaining.txt) has one line per reason:
"PATH<TAB>FUNCTION<TAB>REASON", FUNCTION a function name or "*" for the
rest of the file.  Only the directories named in it are listed.  Every
GFP_NOFS in code (comments and string literals dropped, as census.sh
counts them) is attributed to the function it is in: the last line before
it that starts at column 0 with a name and a parenthesis and does not end
with a semicolon.  A site no line of REASONS covers is "unexplained", and
the exit status is 1 if there is one.
"""
import collections
import os
import re
import subprocess
import sys

TOKENS = re.compile(r'''([^/"']+)|(/\*.*?\*/)|//[^\n]*|("(?:\\.|[^"\\\n])*")|('(?:\\.|[^'\\\n])*')|(.)''',
                    re.S)
FUNC = re.compile(r'(\w+)\s*\(')


def strip(src):
    """Comments and literals out, line breaks kept."""
    def keep(m):
        if m.group(1) is not None:
            return m.group(1)
        if m.group(2) is not None:
            return "\n" * m.group(2).count("\n")
        if m.group(3) is not None:
            return '""'
        if m.group(4) is not None:
            return "''"
        return m.group(0) if m.group(0) != "/" else "/"
    return TOKENS.sub(keep, src)


def function_head(line):
    """The function a line opens, or None: a line that starts at column 0
    with a name and a parenthesis and does not end with a semicolon."""
    m = FUNC.search(line) if re.match(r"[A-Za-z_]", line) else None
    if m and not line.rstrip().endswith(";"):
        return m.group(1)
    return None


def sites(src):
    """[function] per GFP_NOFS in code, in order."""
    out, fn = [], "?"
    for line in strip(src).split("\n"):
        fn = function_head(line) or fn
        out += [fn] * len(re.findall(r"\bGFP_NOFS\b", line))
    return out


def read_reasons(path):
    why = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p for p in line.rstrip("\n").split("\t") if p]
            if len(parts) != 3:
                sys.exit("%s:%d: want PATH, FUNCTION and REASON, tab-separated" % (path, n))
            why[(parts[0], parts[1])] = parts[2]
    return why


def table(why, files):
    """files: {path: source}.  The markdown, and the unexplained count."""
    dirs = sorted({os.path.dirname(p) + "/" for p, _ in why})
    per = collections.OrderedDict((d, collections.OrderedDict()) for d in dirs)
    unexplained = 0
    for path in sorted(files):
        d = os.path.dirname(path) + "/"
        if d not in per:
            continue
        for fn in sites(files[path]):
            r = why.get((path, fn), why.get((path, "*"), "unexplained"))
            unexplained += r == "unexplained"
            per[d].setdefault(r, collections.Counter())[fn] += 1
    out = []
    for d, reasons in per.items():
        total = sum(sum(c.values()) for c in reasons.values())
        out += ["### %s: %d left" % (d, total), "",
                "| sites | why they stay | functions |", "|--:|---|---|"]
        for r, c in sorted(reasons.items(), key=lambda x: (-sum(x[1].values()), x[0])):
            fns = ", ".join("`%s()`%s" % (f, " (%d)" % k if k > 1 else "") for f, k in sorted(c.items()))
            out.append("| %d | %s | %s |" % (sum(c.values()), r, fns))
        out.append("")
    return "\n".join(out), unexplained


def tree_files(tree, dirs):
    names = subprocess.run(["git", "-C", tree, "grep", "-l", "-F", "GFP_NOFS", "--"] +
                           [d + "*.[ch]" for d in dirs],
                           capture_output=True, text=True).stdout.split()
    files = {}
    for n in names:
        with open(os.path.join(tree, n), errors="replace") as f:
            files[n] = f.read()
    return files


def selftest():
    src = ('/* GFP_NOFS in a comment */\nstatic int a(void)\n{\n\tx = kmalloc(1, GFP_NOFS);\n'
           '\ts = "GFP_NOFS";\n}\n\nvoid b(int c,\n       int d)\n{\n\t/*\n\t * GFP_NOFS\n\t */\n'
           '\ty(GFP_NOFS); z(GFP_NOFS);\n}\nint e(void);\n')
    checks = [
        ("comments and strings are not sites", sites(src) == ["a", "b", "b"]),
        ("a prototype does not change the function",
         sites("void f(void)\n{\n}\nint g(void);\nint h = GFP_NOFS;\n") == ["f"]),
        ("a name that starts with an underscore, its type on the line before",
         sites("static int *\n__f(int a,\n\tint b)\n{\n\tGFP_NOFS;\n}\n") == ["__f"]),
    ]
    why = {("fs/x/a.c", "a"): "reason A", ("fs/x/a.c", "*"): "the rest"}
    md, bad = table(why, {"fs/x/a.c": src, "fs/y/b.c": "void q(void)\n{ GFP_NOFS; }\n"})
    checks += [
        ("a function's own reason wins over the file's", "| 1 | reason A | `a()` |" in md),
        ("the file's reason covers the rest, with counts", "| 2 | the rest | `b()` (2) |" in md),
        ("directories not in REASONS are left out", "fs/y/" not in md and bad == 0),
    ]
    md, bad = table({("fs/x/a.c", "a"): "reason A"}, {"fs/x/a.c": src})
    checks.append(("a site with no reason is unexplained and counted",
                   "| 2 | unexplained | `b()` (2) |" in md and bad == 2))
    failed = 0
    for what, ok in checks:
        print("%s - %s" % ("ok" if ok else "not ok", what))
        failed += not ok
    print("%d failed" % failed)
    return 1 if failed else 0


def main(argv):
    if argv[1:] == ["selftest"]:
        return selftest()
    if len(argv) != 3:
        sys.exit(__doc__)
    why = read_reasons(argv[1])
    dirs = sorted({os.path.dirname(p) + "/" for p, _ in why})
    md, bad = table(why, tree_files(argv[2], dirs))
    print(md)
    if bad:
        print("census_sites: %d sites have no reason in %s" % (bad, argv[1]), file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
