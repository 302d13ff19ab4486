// SPDX-License-Identifier: GPL-2.0
/*
 * The arm64 guest's first process (scripts/vm-run builds it static into
 * build/vm/, its /init): loads the kernel modules /modules/order names,
 * in that order, mounts the userland disk /dev/vda (squashfs) read-only on /.root,
 * binds its /usr and /etc over the boot archive's, and runs
 * /vmrun/init with the disk's bash. Static and alone, so that the boot
 * archive holds no shell, no libraries and no kmod: each of those cost
 * the emulated guest tens of millions of instructions to load.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int die(const char *what, const char *name)
{
	fprintf(stderr, "vm-boot: %s %s: %s\n", what, name, strerror(errno));
	return 1;
}

static int load_modules(void)
{
	char name[256], path[300];
	FILE *order = fopen("/modules/order", "r");

	if (!order)
		return die("cannot open", "/modules/order");
	while (fgets(name, sizeof(name), order)) {
		int fd;

		name[strcspn(name, "\n")] = 0;
		if (!name[0])
			continue;
		snprintf(path, sizeof(path), "/modules/%s", name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syscall(SYS_finit_module, fd, "", 0))
			return die("cannot load", path);
		close(fd);
	}
	fclose(order);
	return 0;
}

int main(void)
{
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	struct stat st;
	int i;

	if (mount("devtmpfs", "/dev", "devtmpfs", 0, NULL))
		return die("cannot mount", "/dev");
	if (load_modules())
		return 1;
	/* The disk appears as virtio-blk probes it: 5 s at most. */
	for (i = 0; i < 500 && stat("/dev/vda", &st); i++)
		nanosleep(&tick, NULL);
	if (mount("/dev/vda", "/.root", "squashfs", MS_RDONLY, NULL))
		return die("cannot mount", "/dev/vda");
	if (mount("/.root/usr", "/usr", NULL, MS_BIND, NULL))
		return die("cannot bind", "/usr");
	if (mount("/.root/etc", "/etc", NULL, MS_BIND, NULL))
		return die("cannot bind", "/etc");
	execl("/usr/bin/bash", "bash", "/vmrun/init", (char *)NULL);
	return die("cannot run", "/vmrun/init");
}
