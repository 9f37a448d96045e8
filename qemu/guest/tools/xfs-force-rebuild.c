// SPDX-License-Identifier: GPL-2.0
/*
 * xfs-force-rebuild: ask XFS online repair to rebuild per-AG btrees of a
 * mounted filesystem although they are clean (XFS_SCRUB_IFLAG_FORCE_REBUILD,
 * Linux 6.8 and later).  xfs_io and xfs_scrub of xfsprogs 6.1, which the
 * guest has, cannot set that flag, so without this tool a repair of clean
 * metadata rebuilds nothing.
 *
 *   xfs-force-rebuild [-n] MOUNTPOINT AGCOUNT TYPE...
 *
 * TYPE is bnobt, cntbt, inobt, finobt, rmapbt or refcountbt.  -n asks for
 * a plain repair, without the flag: the control, which on clean metadata
 * must rebuild nothing.  A call that finds the filesystem busy
 * (EBUSY, EDEADLOCK) is retried up to RETRIES times.  One line per call;
 * exit status 0 if every call succeeded, 1 if one failed, 2 on bad
 * arguments.  Built static by qemu/mkinitramfs.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/types.h>

/* The UAPI of fs/xfs/libxfs/xfs_fs.h, which xfsprogs 6.1 predates. */
struct xfs_scrub_metadata {
	__u32 sm_type;
	__u32 sm_flags;
	__u64 sm_ino;
	__u32 sm_gen;
	__u32 sm_agno;
	__u64 sm_reserved[5];
};

#define XFS_IOC_SCRUB_METADATA		_IOWR('X', 60, struct xfs_scrub_metadata)
#define XFS_SCRUB_IFLAG_REPAIR		(1u << 0)
#define XFS_SCRUB_OFLAG_CORRUPT		(1u << 1)
#define XFS_SCRUB_IFLAG_FORCE_REBUILD	(1u << 8)

#define RETRIES		10
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *name;
	__u32 type;
} types[] = {
	{ "bnobt", 5 }, { "cntbt", 6 }, { "inobt", 7 }, { "finobt", 8 },
	{ "rmapbt", 9 }, { "refcountbt", 10 },
};

static int type_of(const char *name, __u32 *type)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(types); i++) {
		if (!strcmp(name, types[i].name)) {
			*type = types[i].type;
			return 0;
		}
	}
	return -1;
}

/* One repair call of TYPE in AGNO; 0, or the errno of the last try. */
static int repair(int fd, __u32 type, unsigned long agno, __u32 flags,
		  __u32 *oflags)
{
	struct xfs_scrub_metadata sm;
	int try;

	for (try = 0; try < RETRIES; try++) {
		memset(&sm, 0, sizeof(sm));
		sm.sm_type = type;
		sm.sm_agno = agno;
		sm.sm_flags = flags;
		if (!ioctl(fd, XFS_IOC_SCRUB_METADATA, &sm)) {
			*oflags = sm.sm_flags;
			return 0;
		}
		if (errno != EBUSY && errno != EDEADLK)
			break;
		usleep(100000);
	}
	return errno;
}

int main(int argc, char **argv)
{
	__u32 flags = XFS_SCRUB_IFLAG_REPAIR | XFS_SCRUB_IFLAG_FORCE_REBUILD;
	__u32 type, oflags = 0;
	unsigned long agcount, agno;
	int fd, i, err, failed = 0;
	char *end;

	if (argc > 1 && !strcmp(argv[1], "-n")) {
		flags = XFS_SCRUB_IFLAG_REPAIR;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: xfs-force-rebuild [-n] MOUNTPOINT AGCOUNT TYPE...\n");
		return 2;
	}
	agcount = strtoul(argv[2], &end, 10);
	if (*end || !agcount) {
		fprintf(stderr, "xfs-force-rebuild: bad AGCOUNT '%s'\n", argv[2]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0) {
		fprintf(stderr, "xfs-force-rebuild: %s: %s\n", argv[1],
			strerror(errno));
		return 2;
	}
	for (i = 3; i < argc; i++) {
		if (type_of(argv[i], &type)) {
			fprintf(stderr, "xfs-force-rebuild: unknown type '%s'\n",
				argv[i]);
			return 2;
		}
		for (agno = 0; agno < agcount; agno++) {
			err = repair(fd, type, agno, flags, &oflags);
			if (err) {
				printf("%s ag %lu: %s\n", argv[i], agno,
				       strerror(err));
				failed = 1;
			} else if (oflags & XFS_SCRUB_OFLAG_CORRUPT) {
				printf("%s ag %lu: corrupt after the repair\n",
				       argv[i], agno);
				failed = 1;
			} else {
				printf("%s ag %lu: ok, out flags 0x%x\n",
				       argv[i], agno, oflags);
			}
		}
	}
	close(fd);
	return failed;
}
