// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/table.h"

/* A function symbol before aliases are merged. */
struct cand {
	uint64_t start, size, sec_end;
	size_t name;
	int bind;
};

static int elf_fail(struct error *err, const char *path)
{
	return error__set(err, ENOEXEC, "cannot read '%s' as ELF: %s (%s)",
			  path, strerror(ENOEXEC), elf_errmsg(-1));
}

static int read_loads(Elf *elf, struct table *t)
{
	GElf_Phdr ph;
	size_t n, i;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	t->loads = calloc(n ? n : 1, sizeof(*t->loads));
	if (!t->loads)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph))
			return -ENOEXEC;
		if (ph.p_type == PT_LOAD && ph.p_filesz)
			t->loads[t->nr_loads++] =
				(struct table_load){ ph.p_offset, ph.p_filesz,
						     ph.p_vaddr };
	}
	return 0;
}

/* .symtab has the static functions too; a stripped file has .dynsym only. */
static Elf_Scn *find_symtab(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *dyn = NULL;
	GElf_Shdr dsh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			continue;
		if (sh->sh_type == SHT_SYMTAB)
			return scn;
		if (sh->sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = *sh;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

static int bind_rank(int bind)
{
	return bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
}

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

/*
 * By address; among aliases the one to show first, in perf's order so
 * that both name a PC alike: a sized one (its size is the function's),
 * global over weak over local (libc's getpid is weak, __getpid global),
 * fewer leading underscores, then by name so every run picks the same.
 */
static int cand_cmp(const void *pa, const void *pb, void *strs)
{
	const struct cand *a = pa, *b = pb;
	const char *na = (char *)strs + a->name, *nb = (char *)strs + b->name;

	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if (a->bind != b->bind)
		return bind_rank(a->bind) - bind_rank(b->bind);
	if (underscores(na) != underscores(nb))
		return underscores(na) < underscores(nb) ? -1 : 1;
	return strcmp(na, nb);
}

/* A size-0 symbol runs at most to its section's end. */
static uint64_t sec_end(Elf *elf, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(elf, shndx);
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return 0;
	return sh.sh_addr + sh.sh_size;
}

static int read_cands(Elf *elf, struct cand **out, size_t *nr, Elf_Data **strs)
{
	Elf_Data *syms;
	Elf_Scn *scn;
	GElf_Shdr sh;
	GElf_Sym sym;
	size_t n, i;
	int type;

	*out = NULL;
	*nr = 0;
	scn = find_symtab(elf, &sh);
	if (!scn || !sh.sh_entsize)
		return 0; /* no symbols: every look-up misses */
	syms = elf_getdata(scn, NULL);
	*strs = elf_getdata(elf_getscn(elf, sh.sh_link), NULL);
	/* Every name must end inside the table: its last byte is a NUL. */
	if (!syms || !*strs || !(*strs)->d_size ||
	    ((char *)(*strs)->d_buf)[(*strs)->d_size - 1])
		return -ENOEXEC;
	/* The data read, not the header's claim, bounds the count. */
	n = syms->d_size / sh.sh_entsize;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (!gelf_getsym(syms, i, &sym))
			return -ENOEXEC;
		type = GELF_ST_TYPE(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF ||
		    sym.st_shndx >= SHN_LORESERVE || !sym.st_name ||
		    sym.st_name >= (*strs)->d_size)
			continue;
		(*out)[(*nr)++] = (struct cand){
			.start = sym.st_value,
			.size = sym.st_size,
			.sec_end = sym.st_size ? 0 : sec_end(elf, sym.st_shndx),
			.name = sym.st_name,
			.bind = GELF_ST_BIND(sym.st_info),
		};
	}
	return 0;
}

/*
 * One entry per address, named after the best alias. A size-0 one ends
 * where its section does: the look-up takes the last start at or below
 * an address, so the next function's start ends it too.
 */
static int build(struct table *t, struct cand *c, size_t n, const char *strs)
{
	size_t i, j, m = 0, len = 0, at = 0;
	uint64_t end;

	t->funcs = calloc(n ? n : 1, sizeof(*t->funcs));
	if (!t->funcs)
		return -ENOMEM;
	for (i = 0; i < n; i = j) {
		end = c[i].size ? c[i].start + c[i].size : c[i].sec_end;
		for (j = i + 1; j < n && c[j].start == c[i].start; j++)
			if (c[j].size && c[j].start + c[j].size > end)
				end = c[j].start + c[j].size;
		t->funcs[m++] =
			(struct table_func){ c[i].start, end, c[i].name };
		len += strlen(strs + c[i].name) + 1;
	}
	t->nr_funcs = m;
	/* Only the names kept: a .strtab can be many times their size. */
	t->names = malloc(len ? len : 1);
	if (!t->names)
		return -ENOMEM;
	for (i = 0; i < m; i++) {
		len = strlen(strs + t->funcs[i].name) + 1;
		memcpy(t->names + at, strs + t->funcs[i].name, len);
		t->funcs[i].name = at;
		at += len;
	}
	return 0;
}

static int load(struct table *t, Elf *elf)
{
	Elf_Data *strs = NULL;
	struct cand *c = NULL;
	size_t n = 0;
	int ret;

	ret = read_loads(elf, t);
	if (!ret)
		ret = read_cands(elf, &c, &n, &strs);
	if (!ret && n) {
		qsort_r(c, n, sizeof(*c), cand_cmp, strs->d_buf);
		ret = build(t, c, n, strs->d_buf);
	}
	free(c);
	return ret;
}

int table__load(struct table *t, int fd, const char *path, struct error *err)
{
	Elf *elf;
	int ret;

	memset(t, 0, sizeof(*t));
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return elf_fail(err, path);
	if (elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		return error__set(err, ENOEXEC, "'%s' is not an ELF file: %s",
				  path, strerror(ENOEXEC));
	}
	ret = load(t, elf);
	if (ret == -ENOMEM)
		error__set(err, ret,
			   "cannot allocate the functions of '%s': %s", path,
			   strerror(-ret));
	else if (ret)
		elf_fail(err, path);
	elf_end(elf);
	if (ret)
		table__free(t);
	return ret;
}

void table__free(struct table *t)
{
	free(t->loads);
	free(t->funcs);
	free(t->names);
	memset(t, 0, sizeof(*t));
}

bool table__vaddr(const struct table *t, uint64_t off, uint64_t *vaddr)
{
	const struct table_load *l;

	for (l = t->loads; l < t->loads + t->nr_loads; l++) {
		if (off >= l->off && off - l->off < l->filesz) {
			*vaddr = off - l->off + l->vaddr;
			return true;
		}
	}
	return false;
}

const struct table_func *table__find(const struct table *t, uint64_t vaddr)
{
	size_t lo = 0, hi = t->nr_funcs, mid;

	/* lo ends as the number of functions starting at or below vaddr. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->funcs[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || vaddr >= t->funcs[lo - 1].end)
		return NULL;
	return &t->funcs[lo - 1];
}
