// SPDX-License-Identifier: GPL-2.0
/* Input of memalloc_nofs_guard.cocci's self-test (scripts/cocci.sh selftest) */

/* guard(): the restore ends the function */
int g_tail(void)
{
	unsigned int flags;
	int ret;

	flags = memalloc_nofs_save();
	ret = foo();
	bar(ret);
	memalloc_nofs_restore(flags);
	return ret;
}

/* guard(): restores before two early returns; braces go with them */
int g_early(int x)
{
	unsigned int flags;
	int ret;

	flags = memalloc_nofs_save();
	ret = foo();
	if (ret) {
		memalloc_nofs_restore(flags);
		return ret;
	}
	if (x) {
		baz();
		memalloc_nofs_restore(flags);
		return -EINVAL;
	}
	bar();
	memalloc_nofs_restore(flags);
	return 0;
}

/* guard(): the if before the save is left as it is */
void g_if_before(struct foo *f)
{
	unsigned int flags;

	if (!f ||
	    !f->a)
		return;
	flags = memalloc_nofs_save();
	if (f->b) {
		memalloc_nofs_restore(flags);
		return;
	}
	bar();
	memalloc_nofs_restore(flags);
}

/* guard(): a goto to the restore at the end */
int g_goto(void)
{
	unsigned int flags;
	int ret;

	flags = memalloc_nofs_save();
	ret = foo();
	if (ret)
		goto out;
	bar();
out:
	memalloc_nofs_restore(flags);
	return ret;
}

/* scoped_guard(), not guard(): a goto jumps over the pair */
int s_goto_over(int x)
{
	unsigned int flags;
	int ret = 0;

	if (x)
		goto out;
	flags = memalloc_nofs_save();
	ret = foo();
	memalloc_nofs_restore(flags);
out:
	return ret;
}

/* guard(): a loop body, a declaration with the save, NOIO */
void g_loop(int n)
{
	while (n--) {
		unsigned int noio = memalloc_noio_save();

		foo();
		memalloc_noio_restore(noio);
	}
}

/* scoped_guard(): the cookie declared in the loop body goes too */
void s_loop(int n)
{
	while (n--) {
		unsigned int flags;

		flags = memalloc_nofs_save();
		foo();
		memalloc_nofs_restore(flags);
		bar();
	}
}

/* scoped_guard(): one statement, then two */
int s_mid(struct foo *f)
{
	unsigned int flags;
	int ret;

	flags = memalloc_nofs_save();
	ret = qtree_read_dquot(f->info,
			       f->dquot);
	memalloc_nofs_restore(flags);
	flags = memalloc_nofs_save();
	f->a = foo();
	f->b = bar();
	memalloc_nofs_restore(flags);
	return baz(ret);
}

/* reported: the cookie is used after the restore */
int r_used(struct foo *f)
{
	unsigned int flags;

	flags = memalloc_nofs_save();
	f->a = foo();
	memalloc_nofs_restore(flags);
	return flags;
}

/* reported: more code after the last restore, with an early return */
int r_early_more(void)
{
	unsigned int flags;
	int ret;

	flags = memalloc_nofs_save();
	ret = foo();
	if (ret) {
		memalloc_nofs_restore(flags);
		return ret;
	}
	bar();
	memalloc_nofs_restore(flags);
	more();
	return 0;
}

/* reported: a return without restore, a label left at the end of the
 * block, a break, a comment, a call after */
int r_leak(int x)
{
	unsigned int flags;

	flags = memalloc_nofs_save();
	if (x)
		return -1;
	foo();
	memalloc_nofs_restore(flags);
	return 0;
}

void r_label_end(int x)
{
	unsigned int flags;

	flags = memalloc_nofs_save();
	if (x)
		goto out;
	foo();
out:
	memalloc_nofs_restore(flags);
}

/* reported: Coccinelle does not follow the early return of an if-else */
void r_else(struct foo *f)
{
	unsigned int flags;

	flags = memalloc_nofs_save();
	if (f->b) {
		memalloc_nofs_restore(flags);
		return;
	} else {
		foo();
	}
	bar();
	memalloc_nofs_restore(flags);
}

int r_break(int n)
{
	unsigned int flags;
	int ret = 0;

	while (n--) {
		flags = memalloc_nofs_save();
		ret = foo();
		if (ret) {
			memalloc_nofs_restore(flags);
			break;
		}
		memalloc_nofs_restore(flags);
	}
	return ret;
}

int r_comment(void)
{
	unsigned int flags;
	int ret;

	flags = memalloc_nofs_save();
	ret = foo();	/* may recurse */
	memalloc_nofs_restore(flags);
	return bar(ret);
}

/* reported: the cookie outlives the function */
void r_nonlocal(struct foo *f)
{
	f->flags = memalloc_nofs_save();
	memalloc_noio_save();
}

unsigned int r_returned(void)
{
	return memalloc_nofs_save();
}
