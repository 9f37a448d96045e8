// SPDX-License-Identifier: GPL-2.0-only
/// Use the guards of <linux/sched/mm.h> for function-local NOFS and NOIO
/// scopes.  A memalloc_nofs_save()/memalloc_nofs_restore() pair whose
/// cookie is a local variable that serves only the restore becomes
/// guard(memalloc_nofs)() when the restore ends the block the save is in,
/// also when the restore is repeated before every early return in between,
/// and scoped_guard(memalloc_nofs) when the pair encloses one to three
/// plain statements in the middle of a block.  The cookie's declaration
/// goes when nothing else uses it.  The same for memalloc_noio_save() and
/// memalloc_noio_restore() with memalloc_noio.  Pairs it leaves alone are
/// reported with the reason: the restore is followed by more code, the scope
/// leaves by goto, break or continue, the cookie lives in a structure, ...
//# guard() ends the scope where the block ends, so a pair converts only
//# when nothing but "return;" or the return of a variable or a constant
//# follows each restore: the scope then covers exactly the same code.
//# Cleanups of other guards or __free() variables declared after the save
//# now run inside the scope instead of after it; that only makes them NOFS.
//# A goto that jumps over the save into the block makes the pair fail the
//# guard() test (not every path through the block passes the save), so it
//# gets a scoped_guard() or a report; the report says when a guard() would
//# share its function with a goto, which cleanup.h advises against.
//# scoped_guard() is a for loop: its body never holds break or continue
//# here, as only expression statements are moved into it.  Statements
//# moved into a scoped_guard() are reprinted, so a pair with a comment
//# between save and restore is reported, not rewritten.
//# Requires --macro-file scripts/coccinelle/memalloc_macros.h so that
//# scoped_guard() parses as an iterator (scripts/cocci.sh passes it).
///
// Confidence: High
// Copyright: (C) 2026 NOFS Scope Developers.
// Comments: scripts/cocci.sh runs it on the files that match every
//   "Files:" regular expression below; see Documentation/coccinelle-report.md
// Options: --no-includes --include-headers
// Files: memalloc_no(fs|io)_save

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@
import re

comment_re = re.compile(r'/\*|\*/|//')

def no_comment_since_save(p):
    """True if no comment lies between the restore at p and its save."""
    try:
        with open(p[0].file, errors='replace') as f:
            lines = f.readlines()
    except OSError:
        return False
    i = int(p[0].line) - 1
    while i >= 0:
        line = lines[i]
        if comment_re.search(line):
            return False
        if re.search(r'\bmemalloc_no(fs|io)_save\s*\(', line):
            return True
        i -= 1
    return False

label_re = re.compile(r'^\s*(?!default\b)[A-Za-z_]\w*\s*:\s*$')

def no_label_left_at_end(p):
    """False if removing the restore at p leaves a label before a '}'."""
    try:
        with open(p[0].file, errors='replace') as f:
            lines = f.readlines()
    except OSError:
        return False
    i = int(p[0].line) - 1
    before = [l for l in lines[:i] if l.strip()][-1:]
    after = [l for l in lines[i + 1:] if l.strip()][:1]
    return not (before and label_re.match(before[0]) and
                after and after[0].strip().startswith('}'))

# saves whose cookie is used for more than its restores: left alone
cookie_used = {}
# (file, function) that hold a goto
goto_fns = set()

def key(p):
    return (p[0].file, p[0].line, p[0].column)

def cookie_free(p):
    return key(p) not in cookie_used

def kind(save):
    return save.replace('_save', '')

def lines_of(nums):
    return ', '.join(sorted(set(nums), key=int))

def lines(ps):
    return lines_of(x.line for x in ps)

def msg(save, what):
    return '%s()/%s() pair: %s' % (save, save.replace('_save', '_restore'),
                                   what)

// ---------------------------------------------------------------------------
// The pairs: a local cookie set by the save, restored in the same function

@s@
identifier save = {memalloc_nofs_save, memalloc_noio_save};
identifier F;
type T;
position ps;
@@

(
F = save@ps();
|
T F = save@ps();
)

@script:python n@
save << s.save;
restore;
G;
@@

coccinelle.restore = cocci.make_ident(save.replace('_save', '_restore'))
coccinelle.G = cocci.make_ident(save.replace('_save', ''))

@script:python fns@
ps << s.ps;
fn;
@@

coccinelle.fn = cocci.make_ident(ps[0].current_element)

@cookie exists@
identifier s.F, s.save, n.restore, fns.fn;
position pu;
@@

fn(...) {
  <...
(
  F = save()
|
  restore(F)
|
  F@pu
)
  ...>
}

@script:python@
ps << s.ps;
pu << cookie.pu;
@@

cookie_used.setdefault(key(ps), set()).update(x.line for x in pu)

// The functions whose cookie serves only the pairs, for the patch rules
@script:python ok@
ps << s.ps;
fn;
@@

# include_match(False) would hide the save from the report rules too
name = ps[0].current_element if cookie_free(ps) else ' no function'
coccinelle.fn = cocci.make_ident(name)

// The restore ends the block, or is followed only by a trivial return; on
// every path, error paths included (when strict).
@tail forall@
identifier s.save, n.restore, s.F, I;
type T;
constant C;
position s.ps;
position pt : script:python () { cookie_free(pt) };
position pr : script:python () { no_label_left_at_end(pr) };
@@

{
  ... when any
(
  F = save@ps@pt();
|
  T F = save@ps@pt();
)
  ... when != F
      when strict
  restore@pr(F);
(
  return;
|
  return I;
|
  return C;
|
  return -C;
|
)
}

// One to three expression statements between save and restore, no comment
@mid@
identifier s.save, n.restore, s.F;
expression E1, E2, E3;
position s.ps;
position pm != tail.pt;
position pc : script:python () { cookie_free(pc) };
position pr : script:python () { no_comment_since_save(pr) and
                                  no_label_left_at_end(pr) };
@@

F = save@ps@pm@pc();
(
E1;
restore@pr(F);
|
E1;
E2;
restore@pr(F);
|
E1;
E2;
E3;
restore@pr(F);
)

// The functions that will change, to drop the cookie when it is now unused
// and the braces of an early return that only the restore needed.
@script:python fnt@
p << tail.pt;
fn;
@@

coccinelle.fn = cocci.make_ident(p[0].current_element)

@script:python fnm@
p << mid.pm;
fn;
@@

coccinelle.fn = cocci.make_ident(p[0].current_element)

// cleanup.h: "usage of goto and cleanup helpers is never mixed in the same
// function"; say so where a guard() would join a goto.
@gt depends on report@
identifier L;
position pg;
@@

goto L@pg;

@script:python@
pg << gt.pg;
@@

goto_fns.add((pg[0].file, pg[0].current_element))

// Not converted: a restore before a return in a conditional, where the
// pair does not end the block (tail did not match).
@early exists@
identifier s.save, n.restore, s.F;
type T;
position s.ps, pe != {tail.pt, mid.pm}, pr;
position pf : script:python () { cookie_free(pf) };
@@

(
F = save@ps@pe@pf();
|
T F = save@ps@pe@pf();
)
... when != F
if (...) {
  ... when != F
  restore@pr(F);
  return ...;
}

@other@
identifier s.save;
position s.ps, po != {tail.pt, mid.pm, early.pe};
@@

save@ps@po()

// Saves whose cookie is not a local variable: kept in a structure,
// returned, or dropped.  The scope outlives the function or never ends.
@nonlocal@
identifier save = {memalloc_nofs_save, memalloc_noio_save};
position pn != s.ps;
@@

save@pn()

// ---------------------------------------------------------------------------
// patch

@tailp depends on patch forall@
identifier s.save, n.restore, n.G, s.F, I;
type T;
constant C;
position pt : script:python () { cookie_free(pt) };
position pr : script:python () { no_label_left_at_end(pr) };
@@

{
  ... when any
(
- F = save@pt();
+ guard(G)();
|
- T F = save@pt();
+ guard(G)();
)
  ... when != F
      when strict
- restore@pr(F);
(
  return;
|
  return I;
|
  return C;
|
  return -C;
|
)
}

@midp1 depends on patch@
identifier s.save, n.restore, n.G, s.F, ok.fn;
iterator name scoped_guard;
expression E1;
position pr : script:python () { no_comment_since_save(pr) and
                                  no_label_left_at_end(pr) };
@@

fn(...) {
  <...
- F = save();
- E1;
- restore@pr(F);
+ scoped_guard(G)
+	E1;
  ...>
}

@midp2 depends on patch@
identifier s.save, n.restore, n.G, s.F, ok.fn;
iterator name scoped_guard;
expression E1, E2;
position pr : script:python () { no_comment_since_save(pr) and
                                  no_label_left_at_end(pr) };
@@

fn(...) {
  <...
- F = save();
- E1;
- E2;
- restore@pr(F);
+ scoped_guard(G) {
+	E1;
+	E2;
+ }
  ...>
}

@midp3 depends on patch@
identifier s.save, n.restore, n.G, s.F, ok.fn;
iterator name scoped_guard;
expression E1, E2, E3;
position pr : script:python () { no_comment_since_save(pr) and
                                  no_label_left_at_end(pr) };
@@

fn(...) {
  <...
- F = save();
- E1;
- E2;
- E3;
- restore@pr(F);
+ scoped_guard(G) {
+	E1;
+	E2;
+	E3;
+ }
  ...>
}

@depends on patch@
identifier fnt.fn, s.F;
type T;
position p : script:python (fn) { p[0].current_element == fn };
@@

{
  ... when any
- T F@p;
  ... when != F
      when strict
}

@depends on patch@
identifier fnm.fn, s.F;
type T;
position p : script:python (fn) { p[0].current_element == fn };
@@

{
  ... when any
- T F@p;
  ... when != F
      when strict
}

@depends on patch disable braces0, braces1, braces2, braces3, braces4@
identifier fnt.fn;
expression E, X;
@@

fn(...) {
  <...
(
- if (E) {
-	return X;
- }
+ if (E)
+	return X;
|
- if (E) {
-	return;
- }
+ if (E)
+	return;
)
  ...>
}

// ---------------------------------------------------------------------------
// context

@depends on context && !patch@
identifier s.save, n.restore, s.F;
position s.ps;
@@

* save@ps()
  ...
* restore(F)

@depends on context && !patch@
identifier save = {memalloc_nofs_save, memalloc_noio_save};
position nonlocal.pn;
@@

* save@pn()

// ---------------------------------------------------------------------------
// org and report: one line per save, naming the pair and what to do

@script:python depends on org@
save << s.save;
F << s.F;
pt << tail.pt;
pr << tail.pr;
@@

cocci.print_main(msg(save, 'guard(%s)(), cookie %s' % (kind(save), F)), pt)
cocci.print_secs('restore', pr)

@script:python depends on report@
save << s.save;
F << s.F;
pt << tail.pt;
pr << tail.pr;
@@

n = len({x.line for x in pr})
what = 'restore on line %s ends the block: use guard(%s)()' % (lines(pr),
                                                              kind(save))
if n > 1:
    what = ('restores on lines %s end every path (%d early return%s): ' +
            'use guard(%s)()') % (lines(pr), n - 1, 's'[:n - 2],
                                   kind(save))
if (pt[0].file, pt[0].current_element) in goto_fns:
    what += ' (the function also uses goto, see cleanup.h)'
coccilib.report.print_report(pt[0], msg(save, what))

@script:python depends on org@
save << s.save;
pm << mid.pm;
pr << mid.pr;
@@

cocci.print_main(msg(save, 'scoped_guard(%s)' % kind(save)), pm)
cocci.print_secs('restore', pr)

@script:python depends on report@
save << s.save;
pm << mid.pm;
pr << mid.pr;
@@

coccilib.report.print_report(pm[0], msg(save,
    'encloses statements up to line %s: use scoped_guard(%s)' %
    (lines(pr), kind(save))))

@script:python depends on org@
save << s.save;
pe << early.pe;
pr << early.pr;
@@

cocci.print_main(msg(save, 'early return, not converted'), pe)
cocci.print_secs('restore before return', pr)

@script:python depends on report@
save << s.save;
pe << early.pe;
pr << early.pr;
@@

coccilib.report.print_report(pe[0], msg(save,
    ('restored before a return on line %s, but the pair does not end ' +
     'the block (code follows a restore, or a label would be left at the ' +
     'end): convert by hand, e.g. move the scope into a helper that ' +
     'ends with it and use guard(%s)() there') % (lines(pr), kind(save))))

@script:python depends on org@
save << s.save;
po << other.po;
@@

cocci.print_main(msg(save, 'not converted'), po)

@script:python depends on report@
save << s.save;
F << s.F;
po << other.po;
@@

if not cookie_free(po):
    what = ('not converted: the cookie %s is also used on line %s: ' +
            'convert by hand') % (F, lines_of(cookie_used[key(po)]))
else:
    what = ('not converted: code follows the restore, a path leaves ' +
            'by goto, break, continue or a return without restore, or a ' +
            'comment is inside: convert by hand')
coccilib.report.print_report(po[0], msg(save, what))

@script:python depends on org@
save << nonlocal.save;
pn << nonlocal.pn;
@@

cocci.print_main(msg(save, 'cookie not in a local variable'), pn)

@script:python depends on report@
save << nonlocal.save;
pn << nonlocal.pn;
@@

coccilib.report.print_report(pn[0], msg(save,
    ('cookie kept in a structure, returned or dropped: the scope outlives ' +
     'the function; use %s_enter()/%s_exit() or a marked lock') %
    (kind(save), kind(save))))
