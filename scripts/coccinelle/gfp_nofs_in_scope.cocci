// SPDX-License-Identifier: GPL-2.0-only
/// Find GFP_NOFS that an allocation scope already implies: allocations in
/// the same function between memalloc_nofs_save() and memalloc_nofs_restore(),
/// memalloc_nofs_enter() and memalloc_nofs_exit(), after guard(memalloc_nofs)()
/// in its block, in the body of scoped_guard(memalloc_nofs), or while a
/// NOFS-marked lock of <linux/memalloc_lock.h> is held (nofs_mutex_lock*()
/// to nofs_mutex_unlock(), nofs_down_read*()/nofs_down_write*() to
/// nofs_up_read()/nofs_up_write(), nofs_percpu_down_*() to
/// nofs_percpu_up_*(), their guards).  NOIO scopes
/// imply NOFS too, and make GFP_NOIO redundant.  The patch mode replaces the
/// flag with GFP_KERNEL where the scope is held on every path to it.
//# Reported but not rewritten: a flag in scope on some paths only (the
//# scope opens conditionally, or an exit of the same kind - an inner pair,
//# another marked lock's unlock - comes first on some path), a flag after
//# a marked-lock acquisition that can fail (trylock, interruptible,
//# killable: it may sit on the failure path), and a mask that is stored or tested rather than
//# used now (mapping_set_gfp_mask(), INIT_RADIX_TREE(), an assignment to a
//# structure member, == and !=, a KUNIT_*() assertion): whoever uses it
//# later may not be in the scope.  A flag passed as a plain value to any
//# other function or macro looks like an allocation and is rewritten.  GFP_NOIO in a NOFS scope is not redundant and is ignored.  The
//# scope must open in the same function: a flag in a helper called under
//# a scope is not found.  memalloc_scope_enter() and guard(memalloc_scope)
//# take a mask the call site does not show and are not followed.
//# Requires --macro-file scripts/coccinelle/memalloc_macros.h so that
//# scoped_guard() parses as an iterator (scripts/cocci.sh passes it).
///
// Confidence: Moderate
// Copyright: (C) 2026 NOFS Scope Developers.
// Comments: scripts/cocci.sh runs it on the files that match every
//   "Files:" regular expression below; see Documentation/coccinelle-report.md
// Options: --no-includes --include-headers
// Files: memalloc_no(fs|io)_(save|enter)|guard\(memalloc_|memalloc_(mutex_(lock|trylock)|down_)
// Files: \bGFP_NO(FS|IO)\b

virtual patch
virtual context
virtual org
virtual report

@initialize:python@
@@

# start of a scope -> (end of the scope, kind)
START = {
    'memalloc_nofs_save': ('memalloc_nofs_restore', 'nofs'),
    'memalloc_noio_save': ('memalloc_noio_restore', 'noio'),
    'memalloc_nofs_enter': ('memalloc_nofs_exit', 'nofs'),
    'memalloc_noio_enter': ('memalloc_noio_exit', 'noio'),
}
# Acquisitions that can fail: the flag may sit on the failure path, so a
# scope they open is never taken as certain.
for s in ('', '_nested'):
    START['nofs_mutex_lock' + s] = ('nofs_mutex_unlock', 'lock')
    START['nofs_down_read' + s] = ('nofs_up_read', 'lock')
    START['nofs_down_write' + s] = ('nofs_up_write', 'lock')
START['nofs_percpu_down_read'] = ('nofs_percpu_up_read', 'lock')
START['nofs_percpu_down_write'] = ('nofs_percpu_up_write', 'lock')
for s in ('_interruptible', '_killable'):
    START['nofs_mutex_lock' + s] = ('nofs_mutex_unlock', 'cond')
START['nofs_mutex_trylock'] = ('nofs_mutex_unlock', 'cond')
for s in ('_interruptible', '_killable', '_trylock'):
    START['nofs_down_read' + s] = ('nofs_up_read', 'cond')
for s in ('_killable', '_trylock'):
    START['nofs_down_write' + s] = ('nofs_up_write', 'cond')

def guard_kind(g):
    if g == 'memalloc_noio':
        return 'noio'
    if g == 'memalloc_nofs':
        return 'nofs'
    return 'lock'

def key(p):
    return (p[0].file, p[0].line, p[0].column)

# key -> {'flag': GFP_..., 'scopes': {(what, kind, line, sure)}}
found = {}
partial = set()         # (key, start line) with a path that misses the scope
kept = set()            # keys of masks that are stored or tested, not used

def add(p, flag, what, kind, line, sure):
    f = found.setdefault(key(p), {'flag': flag, 'scopes': set()})
    f['scopes'].add((what, kind, line, sure))

def verdict(p):
    """(rewrite?, message) for the flag at p, or None."""
    f = found.get(key(p))
    if f is None:
        return None
    flag = f['flag']
    sure, some = [], []
    for (what, kind, line, always) in sorted(f['scopes']):
        where = '%s on line %s' % (what, line)
        if kind == 'cond':
            kind, always = 'lock', False
            where += ' (if it succeeds)'
        elif not always:
            always = (key(p), line) not in partial
        if flag == 'GFP_NOIO' and kind != 'noio':
            # marked locks are NOFS locks: GFP_NOIO under one is needed
            continue
        elif always:
            sure.append(where)
        else:
            some.append(where)
    if sure:
        msg = '%s inside %s' % (flag, ', '.join(sure))
        if key(p) in kept:
            return (False, msg + ', but the mask is stored or tested ' +
                    'here: check who uses it')
        return (True, msg)
    if some:
        return (False, '%s inside %s on some paths only' %
                (flag, ', '.join(some)))
    return None

def message(p):
    v = verdict(p)
    if v is None:
        return None
    return v[1] + ('' if v[0] else ' (not rewritten)')

// ---------------------------------------------------------------------------
// Scopes opened by a call: from the call to the matching end, any path

@st@
identifier start = {memalloc_nofs_save, memalloc_noio_save,
    memalloc_nofs_enter, memalloc_noio_enter,
    nofs_mutex_lock, nofs_mutex_lock_nested,
    nofs_mutex_lock_interruptible, nofs_mutex_lock_killable,
    nofs_mutex_trylock,
    nofs_down_read, nofs_down_read_nested,
    nofs_down_read_interruptible, nofs_down_read_killable,
    nofs_down_read_trylock,
    nofs_down_write, nofs_down_write_nested,
    nofs_down_write_killable, nofs_down_write_trylock,
    nofs_percpu_down_read, nofs_percpu_down_write};
position ps;
@@

start@ps(...)

@script:python en@
start << st.start;
end;
@@

coccinelle.end = cocci.make_ident(START[start][0])

@call exists@
identifier st.start, en.end;
identifier flag = {GFP_NOFS, GFP_NOIO};
position st.ps, p;
@@

start@ps(...)
... when != end(...)
    when any
flag@p

// a path from the function's entry to the flag that misses the start
@entry exists@
identifier st.start, fn;
identifier flag = {GFP_NOFS, GFP_NOIO};
position call.p, pb;
@@

fn(...) {
  ... when != start(...)
      when any
  flag@p@pb
  ... when any
}

// a path from an end of the same kind to the flag without a new start
@ended exists@
identifier st.start, en.end;
identifier flag = {GFP_NOFS, GFP_NOIO};
position call.p, pb;
@@

end(...)
... when != start(...)
    when any
flag@p@pb

@script:python@
p << call.p;
ps << st.ps;
start << st.start;
flag << call.flag;
@@

add(p, flag, start + '()', START[start][1], ps[0].line, False)

@script:python@
p << entry.pb;
ps << st.ps;
@@

partial.add((key(p), ps[0].line))

@script:python@
p << ended.pb;
ps << st.ps;
@@

partial.add((key(p), ps[0].line))

// ---------------------------------------------------------------------------
// Guards: to the end of the block, or the body of a scoped_guard

@grd@
identifier G = {memalloc_nofs, memalloc_noio, nofs_mutex,
    nofs_rwsem_read, nofs_rwsem_write, nofs_percpu_rwsem_read,
    nofs_percpu_rwsem_write};
identifier flag = {GFP_NOFS, GFP_NOIO};
position pg, p;
@@

{
  ... when any
  guard@pg(G)(...);
  ... when any
  flag@p
  ... when any
}

@sgrd@
identifier G = {memalloc_nofs, memalloc_noio, nofs_mutex,
    nofs_mutex_try, nofs_mutex_intr, nofs_rwsem_read,
    nofs_rwsem_read_try, nofs_rwsem_read_intr,
    nofs_rwsem_write, nofs_rwsem_write_try, nofs_percpu_rwsem_read,
    nofs_percpu_rwsem_write};
identifier flag = {GFP_NOFS, GFP_NOIO};
iterator name scoped_guard, scoped_cond_guard;
position pg, p;
@@

(
scoped_guard@pg(G, ...) { <+... flag@p ...+> }
|
scoped_cond_guard@pg(G, ...) { <+... flag@p ...+> }
)

@script:python@
p << grd.p;
pg << grd.pg;
G << grd.G;
flag << grd.flag;
@@

add(p, flag, 'guard(%s)' % G, guard_kind(G), pg[0].line, True)

@script:python@
p << sgrd.p;
pg << sgrd.pg;
G << sgrd.G;
flag << sgrd.flag;
@@

add(p, flag, 'scoped_guard(%s)' % G, guard_kind(G), pg[0].line, True)

// ---------------------------------------------------------------------------
// Masks kept for later, and tests of a mask: never rewritten

@keep@
identifier flag = {GFP_NOFS, GFP_NOIO};
identifier kunit =~ "^KUNIT_";
expression E, F;
identifier fld;
position p;
@@

(
mapping_set_gfp_mask(E, <+... flag@p ...+>)
|
kunit(..., <+... flag@p ...+>, ...)
|
INIT_RADIX_TREE(E, <+... flag@p ...+>)
|
E->fld = \(flag@p \| flag@p | F \| F | flag@p\)
|
E.fld = \(flag@p \| flag@p | F \| F | flag@p\)
|
F == <+... flag@p ...+>
|
F != <+... flag@p ...+>
)

// each side of a test: a disjunction takes only the first branch that fits
@keep2@
identifier flag = {GFP_NOFS, GFP_NOIO};
expression F;
position p;
@@

\( (<+... flag@p ...+>) == F \| (<+... flag@p ...+>) != F \)

@script:python@
p << keep.p;
@@

kept.add(key(p))

@script:python@
p << keep2.p;
@@

kept.add(key(p))

// ---------------------------------------------------------------------------
// patch, context, org, report

@depends on patch@
position p : script:python () { verdict(p) is not None and verdict(p)[0] };
@@

(
- GFP_NOFS@p
+ GFP_KERNEL
|
- GFP_NOIO@p
+ GFP_KERNEL
)

@depends on context && !patch@
identifier flag = {GFP_NOFS, GFP_NOIO};
position p : script:python () { verdict(p) is not None };
@@

* flag@p

@r depends on (org || report) && !patch@
identifier flag = {GFP_NOFS, GFP_NOIO};
position p : script:python () { verdict(p) is not None };
@@

flag@p

@script:python depends on org@
p << r.p;
@@

cocci.print_main(message(p), p)

@script:python depends on report@
p << r.p;
@@

coccilib.report.print_report(p[0], message(p))
