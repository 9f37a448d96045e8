#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check at run time the GFP_NOFS -> GFP_KERNEL conversions of a series.

    instrument_conversions.py sites TREE BASE TIP    list the converted sites
    instrument_conversions.py apply TREE BASE TIP [UNSCOPED]
                                                     instrument TREE (at TIP)
    instrument_conversions.py unasserted TREE BASE TIP
                                  the sites not after memalloc_scope_assert_nofs()
    instrument_conversions.py report SITES LOG...    summarise serial logs
    instrument_conversions.py selftest               check the diff parser

A converted site is a line of TIP that says GFP_KERNEL where BASE said
GFP_NOFS, the rest of the line being the same: the series claims that the
allocation only runs inside a NOFS scope (a transaction handle, a marked
lock, a NOFS workqueue, a guard).  "apply" wraps each such GFP_KERNEL in
NOFS_VERIFY_GFP(), which costs nothing in a real kernel because it is never
committed: it logs "nofs-verify: reached FILE:LINE" the first time the site
allocates inside a NOFS scope, and WARNs "nofs-verify: FILE:LINE allocates
outside a NOFS scope" the first time it does not.  A mask handed to a
->release_folio() helper is not a site: it only says whether the helper may
block (NOT_ALLOCATION).  "report" reads the serial
logs of scenarios run on that kernel and prints which sites were reached,
which were not, and every violation; it fails on a violation.

Some conversions rest on a second argument: the allocation runs outside
any scope, but holds no lock that reclaim takes (mount before the file
system is live, the self-tests before btrfs registers).  UNSCOPED
(scripts/conversions-unscoped.txt) lists them by function, each with the
locks it may hold there, by their lockdep names.  Their sites are wrapped
in NOFS_VERIFY_GFP_UNSCOPED(), which logs "nofs-verify: reached FILE:LINE"
in a scope, "nofs-verify: reached FILE:LINE unscoped" outside one when
every lock the task holds is on the site's list, and WARNs "nofs-verify:
FILE:LINE allocates outside a NOFS scope holding LOCK" when one is not.
A line of UNSCOPED that matches no converted site fails "apply".
"""
import re
import subprocess
import sys

from census_sites import function_head

HEADER = "include/linux/nofs_verify.h"
HEADER_TEXT = """/* SPDX-License-Identifier: GPL-2.0 */
/* Test instrumentation from scripts/instrument_conversions.py: not for merging */
#ifndef _LINUX_NOFS_VERIFY_H
#define _LINUX_NOFS_VERIFY_H
#include <linux/types.h>

void nofs_verify_site(const char *file, int line, bool *reached, bool *warned);

#define NOFS_VERIFY_GFP(gfp) ({						\\
	static bool __nofs_reached, __nofs_warned;			\\
	nofs_verify_site(__FILE__, __LINE__, &__nofs_reached,		\\
			 &__nofs_warned);				\\
	(gfp);								\\
})

void nofs_verify_unscoped_site(const char *file, int line, const char *locks,
			       bool *reached, bool *unscoped, bool *warned);

/* locks: the lockdep names the site may hold outside a scope, "," separated */
#define NOFS_VERIFY_GFP_UNSCOPED(gfp, locks) ({				\\
	static bool __nofs_reached, __nofs_unscoped, __nofs_warned;	\\
	nofs_verify_unscoped_site(__FILE__, __LINE__, (locks),		\\
				  &__nofs_reached, &__nofs_unscoped,	\\
				  &__nofs_warned);			\\
	(gfp);								\\
})
#endif
"""
SOURCE = "mm/nofs_verify.c"
SOURCE_TEXT = """// SPDX-License-Identifier: GPL-2.0
/* Test instrumentation from scripts/instrument_conversions.py: not for merging */
#include <linux/bug.h>
#include <linux/export.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/nofs_verify.h>

void nofs_verify_site(const char *file, int line, bool *reached, bool *warned)
{
	if (memalloc_in_nofs_scope()) {
		if (!READ_ONCE(*reached)) {
			WRITE_ONCE(*reached, true);
			pr_info("nofs-verify: reached %s:%d\\n", file, line);
		}
		return;
	}
	if (!READ_ONCE(*warned)) {
		WRITE_ONCE(*warned, true);
		WARN(1, "nofs-verify: %s:%d allocates outside a NOFS scope\\n",
		     file, line);
	}
}
EXPORT_SYMBOL(nofs_verify_site);

/* Is name one of the comma-separated names in list? */
static bool nofs_verify_listed(const char *name, const char *list)
{
	size_t len = strlen(name);
	const char *p = list;

	while (*p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchrnul(p, ',');
		if (*p)
			p++;
	}
	return false;
}

void nofs_verify_unscoped_site(const char *file, int line, const char *locks,
			       bool *reached, bool *unscoped, bool *warned)
{
	const char *held = NULL;

	if (memalloc_in_nofs_scope()) {
		if (!READ_ONCE(*reached)) {
			WRITE_ONCE(*reached, true);
			pr_info("nofs-verify: reached %s:%d\\n", file, line);
		}
		return;
	}
#ifdef CONFIG_LOCKDEP
	for (int i = 0; i < current->lockdep_depth; i++) {
		const char *name = current->held_locks[i].instance->name;

		if (!name || !nofs_verify_listed(name, locks)) {
			held = name ?: "(a lock with no name)";
			break;
		}
	}
#else
	held = "(locks unknown: no CONFIG_LOCKDEP)";
#endif
	if (held) {
		if (!READ_ONCE(*warned)) {
			WRITE_ONCE(*warned, true);
			WARN(1, "nofs-verify: %s:%d allocates outside a NOFS scope holding %s\\n",
			     file, line, held);
		}
		return;
	}
	if (!READ_ONCE(*unscoped)) {
		WRITE_ONCE(*unscoped, true);
		pr_info("nofs-verify: reached %s:%d unscoped\\n", file, line);
	}
}
EXPORT_SYMBOL(nofs_verify_unscoped_site);
"""

# calls whose gfp_t argument allocates nothing
NOT_ALLOCATION = re.compile(r"release_folio\s*\(")

HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


def converted_sites(diff):
    """(path, line in the new file) of every GFP_NOFS -> GFP_KERNEL line."""
    sites = []
    path = None
    minus, plus, new_line = [], [], 0

    def flush():
        # pair the removed and added lines of a block in order; an
        # assertion added before an allocation is not half of a pair
        kept = [(n, l) for n, l in plus
                if l.strip() != "memalloc_scope_assert_nofs();"]
        for old, (num, new) in zip(minus, kept):
            if ("GFP_NOFS" in old and "GFP_KERNEL" in new
                    and old.replace("GFP_NOFS", "GFP_KERNEL") == new
                    and not NOT_ALLOCATION.search(new)):
                sites.append((path, num))
        minus.clear()
        plus.clear()

    for line in diff.splitlines():
        if line.startswith("+++ "):
            flush()
            path = line[6:] if line.startswith("+++ b/") else None
            continue
        if line.startswith("--- ") or line.startswith("diff "):
            flush()
            continue
        m = HUNK.match(line)
        if m:
            flush()
            new_line = int(m.group(3))
            continue
        if path is None:
            continue
        if line.startswith("-"):
            if plus:
                flush()
            minus.append(line[1:])
        elif line.startswith("+"):
            plus.append((new_line, line[1:]))
            new_line += 1
        else:
            flush()
            new_line += 1
    flush()
    return [s for s in sites if s[0].endswith((".c", ".h"))]


def git_diff(tree, base, tip):
    return subprocess.run(
        ["git", "-C", tree, "diff", "-U0", "--no-color", base, tip,
         "--", "fs", "mm", "kernel", "include", "block", "lib"],
        check=True, capture_output=True, text=True).stdout


def in_function(lines, idx):
    """Is line idx inside a function body (not a macro, not file scope)?"""
    if lines[idx].lstrip().startswith("#") or lines[idx].rstrip().endswith("\\"):
        return False
    depth = 0
    for line in lines[:idx]:
        depth += line.count("{") - line.count("}")
    return depth > 0


def asserted(lines, idx):
    """Does the function holding line idx call memalloc_scope_assert_nofs()
    before it?  The body starts at the last "{" in column 0."""
    for line in reversed(lines[:idx]):
        if "memalloc_scope_assert_nofs()" in line:
            return True
        if line.startswith("{"):
            return False
    return False


def unasserted(tree, base, tip):
    """(sites, [(path, line)] of those whose function does not assert)"""
    sites = converted_sites(git_diff(tree, base, tip))
    files, bare = {}, []
    for path, num in sites:
        if path not in files:
            files[path] = subprocess.run(
                ["git", "-C", tree, "show", f"{tip}:{path}"], check=True,
                capture_output=True, text=True).stdout.split("\n")
        if not asserted(files[path], num - 1):
            bare.append((path, num))
    return sites, bare


def function_of(lines, idx):
    """The function line idx is in, attributed as census_sites.py
    attributes sites."""
    for line in reversed(lines[:idx]):
        name = function_head(line)
        if name:
            return name
    return "?"


def read_unscoped(path):
    """{(path, function): locks} from UNSCOPED: PATH, FUNCTION, the lockdep
    names of the locks the site may hold (comma-separated, "-" for none)
    and the reason, separated by tabs."""
    entries = {}
    for n, line in enumerate(open(path), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [x for x in line.rstrip("\n").split("\t") if x]
        if len(parts) != 4:
            sys.exit(f"{path}:{n}: want PATH, FUNCTION, LOCKS and REASON "
                     f"separated by tabs")
        locks = "" if parts[2] == "-" else parts[2]
        entries[(parts[0], parts[1])] = locks
    return entries


def plan(path, lines, nums, unscoped):
    """[(num, replacement or None)] for the converted lines nums of one
    file, and the set of UNSCOPED keys they used."""
    out, used = [], set()
    for num in nums:
        i = num - 1
        if "GFP_KERNEL" not in lines[i] or not in_function(lines, i):
            out.append((num, None))
            continue
        key = (path, function_of(lines, i))
        if key in unscoped:
            used.add(key)
            macro = f'NOFS_VERIFY_GFP_UNSCOPED(GFP_KERNEL, "{unscoped[key]}")'
        else:
            macro = "NOFS_VERIFY_GFP(GFP_KERNEL)"
        out.append((num, lines[i].replace("GFP_KERNEL", macro)))
    return out, used


def apply(tree, base, tip, unscoped_file=None):
    sites = converted_sites(git_diff(tree, base, tip))
    unscoped = read_unscoped(unscoped_file) if unscoped_file else {}
    by_file = {}
    for path, num in sites:
        by_file.setdefault(path, []).append(num)
    done, used = [], set()
    for path, nums in sorted(by_file.items()):
        full = f"{tree}/{path}"
        lines = open(full).read().split("\n")
        changes, keys = plan(path, lines, nums, unscoped)
        used |= keys
        for num, new in changes:
            if new is None:
                print(f"skipped (not in a function body): {path}:{num}")
                continue
            lines[num - 1] = new
            done.append(f"{path}:{num}" +
                        (" unscoped" if "UNSCOPED" in new else ""))
        # include the header after the first #include of the file
        for i, line in enumerate(lines):
            if line.startswith("#include"):
                lines.insert(i, "#include <linux/nofs_verify.h>")
                break
        open(full, "w").write("\n".join(lines))
    stale = sorted(set(unscoped) - used)
    if stale:
        sys.exit("error: lines of %s that match no converted site: %s" % (
            unscoped_file, ", ".join(f"{p} {f}" for p, f in stale)))
    with open(f"{tree}/{HEADER}", "w") as f:
        f.write(HEADER_TEXT)
    with open(f"{tree}/{SOURCE}", "w") as f:
        f.write(SOURCE_TEXT)
    mk = f"{tree}/mm/Makefile"
    text = open(mk).read()
    if "nofs_verify.o" not in text:
        open(mk, "a").write("obj-y += nofs_verify.o\n")
    return done


def summarize(sites_file, logs):
    """(reached in a scope, reached unscoped as listed, not reached,
    violations) of the sites in sites_file."""
    # the instrumented line is one below the converted one: the #include
    # added at the top of each file shifts it
    sites = [s.strip() for s in open(sites_file) if s.strip()]
    reached, unscoped, bad = set(), set(), set()
    for log in logs:
        for line in open(log, errors="replace"):
            m = re.search(r"nofs-verify: reached (\S+):(\d+)( unscoped)?", line)
            if m:
                (unscoped if m.group(3) else reached).add(
                    f"{m.group(1)}:{m.group(2)}")
            m = re.search(r"nofs-verify: (\S+):(\d+) allocates outside", line)
            if m:
                bad.add(f"{m.group(1)}:{m.group(2)}")
    wanted = {}
    for s in sites:
        path, num = s.rsplit(":", 1)
        wanted[f"{path}:{int(num) + 1}"] = s
    hit = sorted(wanted[k] for k in wanted if k in reached)
    free = sorted(wanted[k] for k in wanted if k in unscoped)
    miss = sorted(wanted[k] for k in wanted
                  if k not in reached and k not in unscoped and k not in bad)
    return hit, free, miss, sorted(wanted.get(k, k) for k in bad)


def report(sites_file, logs):
    hit, free, miss, bad = summarize(sites_file, logs)
    for s in bad:
        print(f"VIOLATION {s}: allocates outside a NOFS scope")
    for s in free:
        print(f"unscoped {s}: reached outside a scope, holding only the "
              f"locks conversions-unscoped.txt allows it")
    for s in miss:
        print(f"not reached {s}")
    total = len(set(hit) | set(free) | set(miss) | set(bad))
    print(f"nofs-verify: {total} converted sites: {len(hit)} reached in a "
          f"NOFS scope, {len(free)} outside one holding only the locks "
          f"their line allows ({len(set(free) - set(hit))} of them never "
          f"in one), {len(bad)} outside one otherwise, {len(miss)} not "
          f"reached")
    if not hit and not free and not bad:
        print("UNJUDGED: no converted site was reached in any log (no run, "
              "or no guest got that far)")
        return 1
    return 1 if bad else 0


def selftest():
    diff = """diff --git a/fs/x/a.c b/fs/x/a.c
--- a/fs/x/a.c
+++ b/fs/x/a.c
@@ -10,2 +10,2 @@ f()
-	p = kmalloc(n, GFP_NOFS);
-	q = kmalloc(n, GFP_NOFS);
+	p = kmalloc(n, GFP_KERNEL);
+	q = kzalloc(n, GFP_KERNEL);
@@ -30 +30,2 @@ g()
-	r = kmalloc(n, GFP_NOFS | __GFP_NOFAIL);
+	guard(memalloc_nofs)();
+	r = kmalloc(n, GFP_KERNEL | __GFP_NOFAIL);
@@ -40 +41 @@ h()
-	s = kmalloc(n, GFP_NOFS | __GFP_NOFAIL);
+	s = kmalloc(n, GFP_KERNEL | __GFP_NOFAIL);
@@ -50 +51 @@ i()
-	btrfs_release_folio(folio, GFP_NOFS);
+	btrfs_release_folio(folio, GFP_KERNEL);
@@ -60 +61,2 @@ j()
-	t = kmalloc(n, GFP_NOFS);
+	memalloc_scope_assert_nofs();
+	t = kmalloc(n, GFP_KERNEL);
"""
    got = converted_sites(diff)
    want = [("fs/x/a.c", 10), ("fs/x/a.c", 41), ("fs/x/a.c", 62)]
    ok = got == want
    print(f"{'ok' if ok else 'FAIL'}: pairs are matched line by line, "
          f"a changed call, an unequal pair or a release_folio mask is not a "
          f"site, an added assertion does not break a pair: {got}")
    lines = ["int x = 1;", "void f(void)", "{", "\tp = kmalloc(GFP_KERNEL);",
             "}", "#define A GFP_KERNEL"]
    ok2 = in_function(lines, 3) and not in_function(lines, 0) \
        and not in_function(lines, 5)
    print(f"{'ok' if ok2 else 'FAIL'}: only lines in function bodies are "
          f"instrumented")
    body = ["void f(void)", "{", "\tmemalloc_scope_assert_nofs();",
            "\tp = kmalloc(GFP_KERNEL);", "}", "void g(void)", "{",
            "\tq = kmalloc(GFP_KERNEL);", "\tmemalloc_scope_assert_nofs();",
            "}"]
    ok2 = ok2 and asserted(body, 3) and not asserted(body, 7)
    print(f"{'ok' if ok2 else 'FAIL'}: a site counts as asserted only after "
          f"an assertion in its own function")
    # report: a reached site passes, a violation fails, a site missing from
    # the logs is only listed; the logs name the line below the site
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        sites = os.path.join(tmp, "sites")
        good = os.path.join(tmp, "good.log")
        bad = os.path.join(tmp, "bad.log")
        unlisted = os.path.join(tmp, "unlisted.log")
        with open(sites, "w") as f:
            f.write("fs/x/a.c:10\nfs/x/a.c:41\nfs/x/a.c:62\n")
        with open(good, "w") as f:
            f.write("[ 1.0] nofs-verify: reached fs/x/a.c:11\n"
                    "[ 1.1] nofs-verify: reached fs/x/a.c:63 unscoped\n"
                    "[ 1.2] nofs-verify: reached fs/x/a.c:11 unscoped\n")
        with open(bad, "w") as f:
            f.write("[ 2.0] WARNING: ... nofs-verify: fs/x/a.c:42 allocates "
                    "outside a NOFS scope\n")
        with open(unlisted, "w") as f:
            f.write("[ 2.0] WARNING: ... nofs-verify: fs/x/a.c:63 allocates "
                    "outside a NOFS scope holding &fs_info->chunk_mutex\n")
        counts = [tuple(map(len, summarize(sites, logs)))
                  for logs in ([good], [good, bad], [unlisted])]
        devnull = open(os.devnull, "w")
        saved, sys.stdout = sys.stdout, devnull
        try:
            quiet = report(sites, [good])
            fires = report(sites, [good, bad])
            fires2 = report(sites, [unlisted])
            empty = os.path.join(tmp, "empty.log")
            open(empty, "w").close()
            unjudged = report(sites, [empty])
        finally:
            sys.stdout = saved
            devnull.close()
    ok3 = counts == [(1, 2, 1, 0), (1, 2, 0, 1), (0, 0, 2, 1)] and \
        quiet == 0 and fires == 1 and fires2 == 1 and unjudged == 1
    print(f"{'ok' if ok3 else 'FAIL'}: the report counts a site reached in "
          f"a scope and a listed one reached outside, passes them, and "
          f"fails on a site reached outside a scope, holding a lock its "
          f"line does not allow, or logs that reached no site "
          f"({counts}, {quiet}, {fires}, {fires2}, {unjudged})")
    # the unscoped category: by function, its locks in the macro, an
    # unlisted function in the plain check, a line matching nothing stale
    src = ["static int f(int n)", "{", "\tp = kmalloc(n, GFP_KERNEL);", "}",
           "static int", "g(void)", "{", "\tq = kmalloc(1, GFP_KERNEL);", "}"]
    got, used = plan("fs/x/a.c", src, [3, 8],
                     {("fs/x/a.c", "g"): "uuid_mutex,&type->s_umount_key",
                      ("fs/x/a.c", "h"): ""})
    want = [(3, "\tp = kmalloc(n, NOFS_VERIFY_GFP(GFP_KERNEL));"),
            (8, '\tq = kmalloc(1, NOFS_VERIFY_GFP_UNSCOPED(GFP_KERNEL, '
                '"uuid_mutex,&type->s_umount_key"));')]
    ok4 = got == want and used == {("fs/x/a.c", "g")} and \
        function_of(src, 2) == "f" and function_of(src, 7) == "g"
    print(f"{'ok' if ok4 else 'FAIL'}: a site of a listed function gets the "
          f"unscoped check with its locks, any other the plain one, and "
          f"only matched lines count as used: {got} {used}")
    return 0 if ok and ok2 and ok3 and ok4 else 1


def main(argv):
    if len(argv) == 2 and argv[1] == "selftest":
        return selftest()
    if len(argv) == 5 and argv[1] == "sites":
        for path, num in converted_sites(git_diff(*argv[2:5])):
            print(f"{path}:{num}")
        return 0
    if len(argv) == 5 and argv[1] == "unasserted":
        sites, bare = unasserted(*argv[2:5])
        for path, num in bare:
            print(f"{path}:{num}")
        print(f"# {len(sites) - len(bare)} of {len(sites)} converted sites "
              f"call memalloc_scope_assert_nofs() before them in their "
              f"function; the {len(bare)} above do not")
        return 0
    if len(argv) in (5, 6) and argv[1] == "apply":
        for site in apply(*argv[2:]):
            print(site)
        return 0
    if len(argv) >= 4 and argv[1] == "report":
        return report(argv[2], argv[3:])
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
