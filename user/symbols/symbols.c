// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/symbols.h"
#include "symbols/table.h"

/* An opened file, and which file it was: a path can be replaced. */
struct file {
	struct file *next;
	char *path;
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	struct table table;
};

/* A list: a process maps tens of objects, not thousands. */
struct symbols {
	struct file *files;
};

int symbols__new(struct symbols **out, struct error *err)
{
	*out = NULL;
	/* Process-wide, but idempotent: every handle may ask. */
	if (elf_version(EV_CURRENT) == EV_NONE)
		return error__set(err, ENOTSUP,
				  "libelf does not support ELF version %d: %s",
				  EV_CURRENT, strerror(ENOTSUP));
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return error__set(err, ENOMEM,
				  "cannot allocate the symbol cache: %s",
				  strerror(ENOMEM));
	return 0;
}

static void file__free(struct file *f)
{
	table__free(&f->table);
	free(f->path);
	free(f);
}

void symbols__free(struct symbols *s)
{
	struct file *f, *next;

	if (!s)
		return;
	for (f = s->files; f; f = next) {
		next = f->next;
		file__free(f);
	}
	free(s);
}

static bool file__is(const struct file *f, const struct stat *st)
{
	return f->dev == st->st_dev && f->ino == st->st_ino &&
	       f->mtime.tv_sec == st->st_mtim.tv_sec &&
	       f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

/* The identity kept is the descriptor's: what was read is what it says. */
static int file__open(struct file **out, const char *path, struct error *err)
{
	struct file *f;
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		return error__set(err, ret, "cannot open '%s': %s", path,
				  strerror(-ret));
	}
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		ret = error__set(err, ENOMEM, "cannot allocate '%s': %s", path,
				 strerror(ENOMEM));
		goto out;
	}
	if (fstat(fd, &st)) {
		ret = -errno;
		error__set(err, ret, "cannot stat '%s': %s", path,
			   strerror(-ret));
		goto out;
	}
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	f->mtime = st.st_mtim;
	ret = table__load(&f->table, fd, path, err);
out:
	close(fd);
	if (ret && f) {
		free(f->path);
		free(f);
	} else {
		*out = f;
	}
	return ret;
}

/*
 * The cached file at path if it is still the one there, else the one
 * there now. One stat a look-up is what noticing a replaced file costs.
 */
static int symbols__file(struct symbols *s, const char *path, struct file **out,
			 struct error *err)
{
	struct file **pp, *f;
	struct stat st;
	int ret;

	*out = NULL;
	if (stat(path, &st)) {
		ret = -errno;
		return error__set(err, ret, "cannot open '%s': %s", path,
				  strerror(-ret));
	}
	/* A FIFO would block the open, and a directory is no object. */
	if (!S_ISREG(st.st_mode))
		return error__set(err, EINVAL, "'%s' is not a regular file: %s",
				  path, strerror(EINVAL));
	for (pp = &s->files; (f = *pp); pp = &f->next) {
		if (strcmp(f->path, path))
			continue;
		if (file__is(f, &st)) {
			*out = f;
			return 0;
		}
		*pp = f->next;
		file__free(f);
		break;
	}
	ret = file__open(&f, path, err);
	if (ret)
		return ret;
	f->next = s->files;
	s->files = f;
	*out = f;
	return 0;
}

int symbols__resolve(struct symbols *s, const char *path, uint64_t file_offset,
		     char *name, size_t len, uint64_t *sym_off,
		     struct error *err)
{
	const struct table_func *fn;
	struct file *f;
	uint64_t vaddr;
	int ret;

	ret = symbols__file(s, path, &f, err);
	if (ret)
		return ret;
	if (!table__vaddr(&f->table, file_offset, &vaddr))
		return error__set(err, ENOENT,
				  "offset 0x%" PRIx64
				  " of '%s' is in no loaded segment",
				  file_offset, path);
	fn = table__find(&f->table, vaddr);
	if (!fn)
		return error__set(err, ENOENT,
				  "no function of '%s' holds 0x%" PRIx64, path,
				  vaddr);
	snprintf(name, len, "%s", f->table.names + fn->name);
	*sym_off = vaddr - fn->start;
	return 0;
}
