// SPDX-License-Identifier: GPL-2.0
/*
 * Macro hints for spatch --macro-file (scripts/cocci.sh passes it): the
 * cleanup.h guards that take a statement, parsed as iterators like
 * list_for_each().  Coccinelle 1.1.1 does not know them and fails to
 * parse any function that uses them.
 */
#define scoped_guard(_name, args...) YACFE_ITERATOR
#define scoped_cond_guard(_name, _fail, args...) YACFE_ITERATOR
