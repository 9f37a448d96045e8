// SPDX-License-Identifier: GPL-2.0
/*
 * holey: a file of many one-block extents, a hole after each, made with
 * one fallocate(2) call per extent, for workloads that need a truncate or
 * an unlink to be a long chain of deferred frees (XFS frees two extents
 * per transaction roll, each with its intent and done items).  A loop of
 * xfs_io commands takes ten times longer under TCG.
 *
 *   holey FILE COUNT
 *
 * FILE is created or extended; extent i covers block 2i (of st_blksize
 * bytes), unwritten.  The file is fsynced at the end.  Exit status 0 on
 * success, 1 on an I/O error, 2 on bad arguments.  Built static by
 * qemu/mkinitramfs.sh.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct stat st;
	char *end;
	long count, i;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: holey FILE COUNT\n");
		return 2;
	}
	count = strtol(argv[2], &end, 10);
	if (*end || count <= 0) {
		fprintf(stderr, "holey: COUNT must be a positive number: %s\n",
			argv[2]);
		return 2;
	}
	fd = open(argv[1], O_WRONLY | O_CREAT, 0644);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "holey: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	for (i = 0; i < count; i++) {
		if (fallocate(fd, 0, 2 * i * st.st_blksize, st.st_blksize)) {
			fprintf(stderr, "holey: %s: extent %ld: %s\n", argv[1],
				i, strerror(errno));
			return 1;
		}
	}
	if (fsync(fd) || close(fd)) {
		fprintf(stderr, "holey: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	return 0;
}
