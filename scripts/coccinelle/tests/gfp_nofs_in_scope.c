// SPDX-License-Identifier: GPL-2.0
/* Input of gfp_nofs_in_scope.cocci's self-test (scripts/cocci.sh selftest) */

/* true positives */
static void *save_pair(size_t n)
{
	unsigned int flags;
	void *p;

	flags = memalloc_nofs_save();
	p = kmalloc(n, GFP_NOFS);
	memalloc_nofs_restore(flags);
	return p;
}

static void counted(struct inode *inode)
{
	memalloc_nofs_enter();
	inode->priv = kzalloc(64, GFP_NOFS | __GFP_NOFAIL);
	memalloc_nofs_exit();
}

static int guarded(struct foo *f)
{
	guard(memalloc_nofs)();
	f->buf = kvmalloc(f->len, GFP_NOFS);
	return f->buf ? 0 : -ENOMEM;
}

static void scoped(struct foo *f)
{
	scoped_guard(memalloc_nofs)
		f->a = kmalloc(8, GFP_NOFS);
	scoped_guard(memalloc_noio) {
		f->b = kmalloc(8, GFP_NOIO);
		f->c = kmalloc(8, GFP_NOFS);
	}
}

static void locked(struct foo *f)
{
	nofs_mutex_lock(&f->lock);
	f->a = kmalloc(8, GFP_NOFS);
	nofs_mutex_unlock(&f->lock);
	nofs_down_write_nested(&f->sem, 1);
	f->b = kmalloc(8, GFP_NOFS);
	nofs_up_write(&f->sem);
}

static int locked_guard(struct foo *f)
{
	guard(nofs_rwsem_read)(&f->sem);
	f->a = kmalloc(8, GFP_NOFS);
	return 0;
}

static void noio_pair(struct foo *f)
{
	unsigned int noio;

	noio = memalloc_noio_save();
	f->a = kmalloc(8, GFP_NOIO);
	if (f->x)
		f->b = kmalloc(8, GFP_NOFS);
	memalloc_noio_restore(noio);
}

/* only on some paths: reported, not rewritten */
static void partial(struct foo *f, bool nofs)
{
	unsigned int flags = 0;

	if (nofs)
		flags = memalloc_nofs_save();
	f->a = kmalloc(8, GFP_NOFS);
	if (nofs)
		memalloc_nofs_restore(flags);
}

/* GFP_NOIO under a marked (NOFS) lock is needed: not reported */
static void lock_noio(struct foo *f)
{
	nofs_mutex_lock(&f->lock);
	f->a = kmalloc(8, GFP_NOIO);
	nofs_mutex_unlock(&f->lock);
}

/* the mask is kept for later: reported, not rewritten */
static void kept(struct inode *inode)
{
	memalloc_nofs_enter();
	mapping_set_gfp_mask(inode->i_mapping, GFP_NOFS);
	inode->gfp = GFP_NOFS;
	KUNIT_EXPECT_EQ(test, current_gfp_context(GFP_KERNEL), GFP_NOFS);
	memalloc_nofs_exit();
}

/* a test of a mask, a conditional lock: reported, not rewritten */
static bool tests_mask(gfp_t gfp)
{
	bool nofs;

	memalloc_nofs_enter();
	nofs = (gfp & GFP_NOFS) == GFP_NOFS;
	memalloc_nofs_exit();
	return nofs;
}

static void trylocked(struct foo *f)
{
	if (!nofs_mutex_trylock(&f->lock)) {
		f->a = kmalloc(8, GFP_NOFS);
		return;
	}
	f->b = kmalloc(8, GFP_NOFS);
	nofs_mutex_unlock(&f->lock);
}

/* must not match */
static void after_restore(struct foo *f)
{
	unsigned int flags;

	flags = memalloc_nofs_save();
	f->a = kmalloc(8, GFP_KERNEL);
	memalloc_nofs_restore(flags);
	f->b = kmalloc(8, GFP_NOFS);
}

static void before_enter(struct foo *f)
{
	f->b = kmalloc(8, GFP_NOFS);
	memalloc_nofs_enter();
	f->a = kmalloc(8, GFP_KERNEL);
	memalloc_nofs_exit();
}

static void other_function(struct foo *f)
{
	f->b = kmalloc(8, GFP_NOFS);
}

static void after_guard_block(struct foo *f)
{
	if (f->x) {
		guard(memalloc_nofs)();
		f->a = kmalloc(8, GFP_KERNEL);
	}
	f->b = kmalloc(8, GFP_NOFS);
}

static void after_scoped_guard(struct foo *f)
{
	scoped_guard(memalloc_nofs)
		f->a = kmalloc(8, GFP_KERNEL);
	f->b = kmalloc(8, GFP_NOFS);
}

static void after_unlock(struct foo *f)
{
	nofs_down_read(&f->sem);
	f->a = kmalloc(8, GFP_KERNEL);
	nofs_up_read(&f->sem);
	f->b = kmalloc(8, GFP_NOFS);
}

static void noio_in_nofs(struct foo *f)
{
	memalloc_nofs_enter();
	f->a = kmalloc(8, GFP_NOIO);
	memalloc_nofs_exit();
}

static void plain_lock(struct foo *f)
{
	mutex_lock(&f->plain);
	f->a = kmalloc(8, GFP_NOFS);
	mutex_unlock(&f->plain);
}

static void comment_only(struct foo *f)
{
	memalloc_nofs_enter();
	/* we used to need GFP_NOFS here */
	f->a = kmalloc(8, GFP_KERNEL);
	memalloc_nofs_exit();
}
