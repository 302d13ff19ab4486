// SPDX-License-Identifier: GPL-2.0
/*
 * inflate_cost [-w DIR] FILE.gz PLAIN: which inflater `bpmc report`
 * should read .gz exports with. FILE.gz is PLAIN compressed (gzip -1 in
 * bench/inflate_cost.sh); both are read into memory first, so no I/O is
 * timed.
 *
 * 1. One thread, the whole file, output discarded in a 1 MiB buffer as a
 *    streaming reader would: zlib's inflate(), ISA-L's isal_inflate();
 *    and libdeflate, which only inflates whole members in memory: its
 *    whole-buffer libdeflate_gzip_decompress_ex() into one buffer of the
 *    plain size. Best of 5, MB/s (10^6 bytes) of output, CRCs checked.
 * 2. The file cut mid-stream (the tail of a crashed run): what each
 *    gives back, checked against PLAIN's bytes.
 * 3. PLAIN written as gzip members of 1, 4 and 16 MiB of text (cut after
 *    a whole line), zlib level 1 like gzip -1, each member's header
 *    carrying an FEXTRA subfield 'B','P' of 4 bytes: the member's whole
 *    compressed size, as BGZF's 'B','C' does (there in 2 bytes, for
 *    64 KiB blocks). A reader finds every member by hopping from header
 *    to header, reading 20 bytes each, without inflating anything. Their
 *    size beside one zlib level 1 stream of the same text, the time to
 *    index them, and ISA-L (and libdeflate, one member whole at a time,
 *    its size from the member's ISIZE) on 1 and 2 threads, members
 *    handed out in order; 1 and 2 threads alternate, and the speed-up
 *    is the median (and range) of the pairs'. -w DIR writes them as DIR/members-NM.gz, for
 *    gzip -t and zcat | cmp.
 *
 * Prints "name value" lines.
 */
#include <errno.h>
#include <fcntl.h>
#include <isa-l/igzip_lib.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#if __has_include(<libdeflate.h>)
#include <libdeflate.h>
#define HAVE_LIBDEFLATE 1
#else
#define HAVE_LIBDEFLATE 0
#endif

#define ROUNDS 5
#define OUT_BUF (1 << 20)
#define THREADS 2
/* 10 bytes, XLEN, then one subfield: SI1 SI2 SLEN and the member's size. */
#define MEMBER_HDR 20
#define MEMBER_SI1 'B'
#define MEMBER_SI2 'P'

struct input {
	const uint8_t *p;
	size_t n;
};

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int map_file(const char *path, struct input *in)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p;

	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "inflate_cost: cannot open %s: %s\n", path,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -errno;
	}
	p = mmap(NULL, st.st_size ? st.st_size : 1, PROT_READ, MAP_PRIVATE, fd,
		 0);
	close(fd);
	if (p == MAP_FAILED) {
		fprintf(stderr, "inflate_cost: cannot map %s: %s\n", path,
			strerror(errno));
		return -errno;
	}
	/* Paged in now, not while an inflater is timed. */
	madvise(p, st.st_size, MADV_WILLNEED);
	for (off_t i = 0; i < st.st_size; i += 4096)
		(void)*(volatile const uint8_t *)((const uint8_t *)p + i);
	in->p = p;
	in->n = st.st_size;
	return 0;
}

/*
 * Where the output goes: discarded, or compared with the plain text
 * (expect) to check what came back. Returns -EILSEQ on a mismatch.
 */
struct sinkbuf {
	const uint8_t *expect;
	size_t expect_n;
	uint64_t total;
	bool mismatch;
};

static void got(struct sinkbuf *s, const uint8_t *out, size_t n)
{
	if (s->expect && !s->mismatch &&
	    (s->total + n > s->expect_n ||
	     memcmp(out, s->expect + s->total, n)))
		s->mismatch = true;
	s->total += n;
}

/*
 * Every member of in, streamed: 0 when the last member ended at the
 * end of the input, 1 when the input ended first (a cut file), <0 on bad
 * data; the output in s.
 */
static int run_zlib(struct input in, uint8_t *out, struct sinkbuf *s)
{
	z_stream z = {};
	int ret, done = 1;

	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in.p;
	z.avail_in = in.n;
	for (;;) {
		z.next_out = out;
		z.avail_out = OUT_BUF;
		ret = inflate(&z, Z_NO_FLUSH);
		got(s, out, OUT_BUF - z.avail_out);
		if (ret == Z_STREAM_END) {
			if (!z.avail_in) {
				done = 0;
				break;
			}
			inflateReset(&z);
		} else if (ret == Z_BUF_ERROR && !z.avail_in) {
			break; /* cut */
		} else if (ret != Z_OK) {
			done = -EILSEQ;
			break;
		}
	}
	inflateEnd(&z);
	return done;
}

static int run_isal_state(struct inflate_state *st, struct input in,
			  uint8_t *out, struct sinkbuf *s)
{
	size_t produced;
	int ret;

	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	st->next_in = (uint8_t *)in.p;
	st->avail_in = in.n;
	for (;;) {
		st->next_out = out;
		st->avail_out = OUT_BUF;
		ret = isal_inflate(st);
		produced = OUT_BUF - st->avail_out;
		got(s, out, produced);
		if (ret < 0)
			return -EILSEQ;
		if (st->block_state == ISAL_BLOCK_FINISH) {
			uint8_t *next = st->next_in;
			uint32_t left = st->avail_in;

			if (!left)
				return 0;
			isal_inflate_reset(st);
			st->crc_flag = ISAL_GZIP;
			st->next_in = next;
			st->avail_in = left;
		} else if (!st->avail_in && !produced) {
			return 1; /* cut */
		}
	}
}

static int run_isal(struct input in, uint8_t *out, struct sinkbuf *s)
{
	struct inflate_state *st = malloc(sizeof(*st));
	int ret;

	if (!st)
		return -ENOMEM;
	ret = run_isal_state(st, in, out, s);
	free(st);
	return ret;
}

#if HAVE_LIBDEFLATE
/* Whole members, one after the other, into out (cap bytes). */
static int run_libdeflate(struct libdeflate_decompressor *d, struct input in,
			  uint8_t *out, size_t cap, struct sinkbuf *s)
{
	size_t used_in = 0, used_out = 0, n_in, n_out;
	enum libdeflate_result r;

	while (used_in < in.n) {
		r = libdeflate_gzip_decompress_ex(
			d, in.p + used_in, in.n - used_in, out + used_out,
			cap - used_out, &n_in, &n_out);
		if (r != LIBDEFLATE_SUCCESS)
			return -(int)r - 1000;
		got(s, out + used_out, n_out);
		used_in += n_in;
		used_out += n_out;
	}
	return 0;
}
#endif

/* The best and worst of the rounds, in MB/s of out bytes over secs. */
static void report(const char *name, const double *secs, uint64_t out)
{
	double lo = secs[0], hi = secs[0];

	for (int i = 1; i < ROUNDS; i++) {
		lo = secs[i] < lo ? secs[i] : lo;
		hi = secs[i] > hi ? secs[i] : hi;
	}
	printf("%s_mbps %.0f\n", name, out / 1e6 / lo);
	printf("%s_mbps_range %.0f-%.0f\n", name, out / 1e6 / hi,
	       out / 1e6 / lo);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double best(const double *secs)
{
	double lo = secs[0];

	for (int i = 1; i < ROUNDS; i++)
		lo = secs[i] < lo ? secs[i] : lo;
	return lo;
}

/* One gzip member of text, level 1, with its 'B','P' size subfield. */
static int put_member(z_stream *z, const uint8_t *text, size_t n, uint8_t *out,
		      size_t cap, size_t *len)
{
	uint32_t crc = crc32(0, text, n), size;
	uint8_t *p = out;

	if (cap < MEMBER_HDR + 8)
		return -ENOSPC;
	deflateReset(z);
	z->next_in = (Bytef *)text;
	z->avail_in = n;
	z->next_out = out + MEMBER_HDR;
	z->avail_out = cap - MEMBER_HDR - 8;
	if (deflate(z, Z_FINISH) != Z_STREAM_END)
		return -ENOSPC;
	size = MEMBER_HDR + (z->next_out - (out + MEMBER_HDR)) + 8;
	/* ID1 ID2 CM FLG=FEXTRA MTIME(4) XFL OS=unix XLEN(2) */
	memcpy(p, "\x1f\x8b\x08\x04\0\0\0\0\0\x03\x08\0", 12);
	p[12] = MEMBER_SI1;
	p[13] = MEMBER_SI2;
	p[14] = 4;
	p[15] = 0;
	for (int i = 0; i < 4; i++)
		p[16 + i] = size >> (8 * i);
	p = out + size - 8;
	for (int i = 0; i < 4; i++) {
		p[i] = crc >> (8 * i);
		p[4 + i] = (uint32_t)n >> (8 * i);
	}
	*len = size;
	return 0;
}

/*
 * Where the members are, from their headers alone: offsets[0..nr], the
 * last the file's end. -EINVAL on a member without the subfield, or a
 * size that does not land on the next header.
 */
static int index_members(struct input in, size_t *offsets, size_t max,
			 size_t *nr)
{
	size_t at = 0, k = 0, size;
	const uint8_t *h;

	while (at < in.n) {
		h = in.p + at;
		if (k == max || in.n - at < MEMBER_HDR + 10 || h[0] != 0x1f ||
		    h[1] != 0x8b || !(h[3] & 4) || h[12] != MEMBER_SI1 ||
		    h[13] != MEMBER_SI2 || h[14] != 4 || h[15])
			return -EINVAL;
		size = h[16] | h[17] << 8 | h[18] << 16 | (size_t)h[19] << 24;
		if (size < MEMBER_HDR + 10 || size > in.n - at)
			return -EINVAL;
		offsets[k++] = at;
		at += size;
	}
	offsets[k] = at;
	*nr = k;
	return 0;
}

struct pool {
	struct input file;
	const size_t *offsets;
	size_t nr;
	int next; /* the next member to take */
	bool libdeflate;
	size_t max_member; /* plain bytes of the largest member */
	uint64_t total[THREADS];
	int err[THREADS];
};

struct worker {
	struct pool *pool;
	int id;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	struct pool *p = w->pool;
	struct sinkbuf s = {};
	struct inflate_state *st = malloc(sizeof(*st));
	size_t cap = p->libdeflate ? p->max_member : OUT_BUF;
	uint8_t *out = malloc(cap);
	size_t k;
	int err = 0;
#if HAVE_LIBDEFLATE
	struct libdeflate_decompressor *d =
		p->libdeflate ? libdeflate_alloc_decompressor() : NULL;
#endif

	if (!st || !out)
		err = -ENOMEM;
	while (!err && (k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
			       p->nr) {
		struct input m = { p->file.p + p->offsets[k],
				   p->offsets[k + 1] - p->offsets[k] };

#if HAVE_LIBDEFLATE
		if (p->libdeflate) {
			err = d ? run_libdeflate(d, m, out, cap, &s) : -ENOMEM;
			continue;
		}
#endif
		err = run_isal_state(st, m, out, &s);
	}
#if HAVE_LIBDEFLATE
	libdeflate_free_decompressor(d);
#endif
	p->total[w->id] = s.total;
	p->err[w->id] = err;
	free(st);
	free(out);
	return NULL;
}

/* Every member inflated by n threads: the seconds it took, or < 0. */
static double run_pool(struct pool *p, int n)
{
	pthread_t t[THREADS];
	struct worker w[THREADS];
	double t0 = now();
	uint64_t total = 0;

	p->next = 0;
	for (int i = 0; i < n; i++) {
		w[i] = (struct worker){ p, i };
		p->total[i] = 0;
		if (pthread_create(&t[i], NULL, work, &w[i]))
			return -1;
	}
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], NULL);
		if (p->err[i])
			return -1;
		total += p->total[i];
	}
	t0 = now() - t0;
	return total ? t0 : -1;
}

/* PLAIN as members of mib MiB: their sizes, and how fast they inflate. */
static int members(struct input plain, size_t mib, uint64_t stream_bytes,
		   const char *dir)
{
	size_t cap = plain.n + plain.n / 8 + (1 << 20), len, at = 0, nr,
	       piece = mib << 20, n, max_member = 0;
	uint8_t *out = malloc(cap);
	size_t *offsets = NULL, used = 0, max_nr = plain.n / piece + 2;
	double secs[ROUNDS], t;
	z_stream z = {};
	struct pool pool = {};
	int err = -ENOMEM;

	if (!out ||
	    deflateInit2(&z, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		goto out;
	while (at < plain.n) {
		const uint8_t *nl;

		n = plain.n - at > piece ? piece : plain.n - at;
		nl = memchr(plain.p + at + n - 1, '\n', plain.n - at - n + 1);
		n = nl ? (size_t)(nl - plain.p) + 1 - at : plain.n - at;
		err = put_member(&z, plain.p + at, n, out + used, cap - used,
				 &len);
		if (err)
			goto out;
		max_member = n > max_member ? n : max_member;
		used += len;
		at += n;
	}
	printf("inflate_members_%zum_bytes %zu\n", mib, used);
	printf("inflate_members_%zum_size_pct %.1f\n", mib,
	       100.0 * used / stream_bytes);
	if (dir) {
		char path[4096];
		FILE *f;

		snprintf(path, sizeof(path), "%s/members-%zum.gz", dir, mib);
		f = fopen(path, "we");
		if (!f || fwrite(out, 1, used, f) != used || fclose(f)) {
			fprintf(stderr, "inflate_cost: cannot write %s\n",
				path);
			err = -EIO;
			goto out;
		}
	}
	offsets = malloc((max_nr + 1) * sizeof(*offsets));
	err = -ENOMEM;
	if (!offsets)
		goto out;
	for (int r = 0; r < ROUNDS; r++) {
		t = now();
		err = index_members((struct input){ out, used }, offsets,
				    max_nr, &nr);
		secs[r] = now() - t;
		if (err) {
			fprintf(stderr,
				"inflate_cost: the members do not index\n");
			goto out;
		}
	}
	printf("inflate_members_%zum_count %zu\n", mib, nr);
	printf("inflate_index_%zum_us %.1f\n", mib, best(secs) * 1e6);
	pool = (struct pool){ .file = { out, used },
			      .offsets = offsets,
			      .nr = nr,
			      .max_member = max_member };
	for (int lib = 0; lib < 1 + HAVE_LIBDEFLATE; lib++) {
		const char *name = lib ? "libdeflate" : "isal";
		double secs2[ROUNDS], speedup[ROUNDS];
		char key[64];

		pool.libdeflate = lib;
		/* 1 and 2 threads in alternated pairs: the speed-up of each
		 * pair, on a machine whose other CPU may be busy. */
		for (int r = 0; r < ROUNDS; r++) {
			for (int i = 0; i < 2; i++) {
				int threads = (r + i) % 2 ? THREADS : 1;
				double s = run_pool(&pool, threads);

				if (s < 0) {
					fprintf(stderr,
						"inflate_cost: %s cannot inflate the %zu MiB members\n",
						name, mib);
					err = -EILSEQ;
					goto out;
				}
				(threads == 1 ? secs : secs2)[r] = s;
			}
			speedup[r] = secs[r] / secs2[r];
		}
		snprintf(key, sizeof(key), "inflate_%s_1t_%zum", name, mib);
		report(key, secs, plain.n);
		snprintf(key, sizeof(key), "inflate_%s_%dt_%zum", name, THREADS,
			 mib);
		report(key, secs2, plain.n);
		qsort(speedup, ROUNDS, sizeof(*speedup), cmp_double);
		printf("inflate_%s_%dt_%zum_speedup %.2f\n", name, THREADS, mib,
		       speedup[ROUNDS / 2]);
		printf("inflate_%s_%dt_%zum_speedup_range %.2f-%.2f\n", name,
		       THREADS, mib, speedup[0], speedup[ROUNDS - 1]);
	}
	err = 0;
out:
	deflateEnd(&z);
	free(offsets);
	free(out);
	return err;
}

/* One zlib level 1 stream of PLAIN: what the members are weighed by. */
static uint64_t stream_size(struct input plain)
{
	size_t cap = 1 << 22;
	uint8_t *out = malloc(cap);
	uint64_t total = 0;
	z_stream z = {};
	int ret;

	if (!out || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(out);
		return 0;
	}
	z.next_in = (Bytef *)plain.p;
	z.avail_in = plain.n;
	do {
		z.next_out = out;
		z.avail_out = cap;
		ret = deflate(&z, Z_FINISH);
		total += cap - z.avail_out;
	} while (ret == Z_OK || ret == Z_BUF_ERROR);
	deflateEnd(&z);
	free(out);
	return ret == Z_STREAM_END ? total : 0;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "zlib", "isal", "libdeflate" };
	struct input gz, plain, cut;
	double secs[ROUNDS], t;
	uint8_t *out = malloc(OUT_BUF);
	const char *dir = NULL;
	uint64_t stream;
	int opt, ret;

	while ((opt = getopt(argc, argv, "w:")) != -1) {
		if (opt != 'w')
			goto usage;
		dir = optarg;
	}
	if (argc - optind != 2)
		goto usage;
	if (!out || map_file(argv[optind], &gz) ||
	    map_file(argv[optind + 1], &plain))
		return 1;
	printf("inflate_input_gz_bytes %zu\n", gz.n);
	printf("inflate_output_bytes %zu\n", plain.n);
#if HAVE_LIBDEFLATE
	struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
	uint8_t *whole = malloc(plain.n + 1);

	if (!d || !whole)
		return 1;
	/* Its pages faulted in once, not in the timed runs. */
	memset(whole, 0, plain.n + 1);
#else
	printf("inflate_libdeflate skipped (no <libdeflate.h>: apt-get install libdeflate-dev)\n");
#endif

	for (int lib = 0; lib < 2 + HAVE_LIBDEFLATE; lib++) {
		/* Checked once against the plain text, then timed. */
		for (int r = -1; r < ROUNDS; r++) {
			struct sinkbuf s = { .expect = r < 0 ? plain.p : NULL,
					     .expect_n = plain.n };

			t = now();
			ret = lib == 0 ? run_zlib(gz, out, &s) :
			      lib == 1 ? run_isal(gz, out, &s) :
#if HAVE_LIBDEFLATE
					 run_libdeflate(d, gz, whole,
							plain.n + 1, &s);
#else
					 -ENOSYS;
#endif
			t = now() - t;
			if (ret || s.mismatch || s.total != plain.n) {
				fprintf(stderr,
					"inflate_cost: %s gave back %llu bytes of %zu%s (%d)\n",
					names[lib], (unsigned long long)s.total,
					plain.n,
					s.mismatch ? ", not the plain text" :
						     "",
					ret);
				return 1;
			}
			if (r >= 0)
				secs[r] = t;
		}
		char key[32];

		snprintf(key, sizeof(key), "inflate_%s", names[lib]);
		report(key, secs, plain.n);
	}

	/* Cut at 60 % and an odd byte: inside a deflate block. */
	cut = (struct input){ gz.p, gz.n * 3 / 5 + 12345 };
	printf("inflate_cut_at_bytes %zu\n", cut.n);
	for (int lib = 0; lib < 2 + HAVE_LIBDEFLATE; lib++) {
		struct sinkbuf s = { .expect = plain.p, .expect_n = plain.n };

		ret = lib == 0 ? run_zlib(cut, out, &s) :
		      lib == 1 ? run_isal(cut, out, &s) :
#if HAVE_LIBDEFLATE
				 run_libdeflate(d, cut, whole, plain.n + 1, &s);
#else
				 -ENOSYS;
#endif
		/* libdeflate writes into whole but says nothing of how much:
		 * a failed call gives back nothing a reader can use. */
		printf("inflate_cut_%s_bytes %llu\n", names[lib],
		       ret < 0 ? 0ull : (unsigned long long)s.total);
		printf("inflate_cut_%s %s\n", names[lib],
		       s.mismatch ? "wrong bytes" :
		       ret == 1	  ? "gives back what precedes the cut" :
		       ret < 0	  ? "refuses the member: nothing back" :
				    "says the cut file is whole");
	}
#if HAVE_LIBDEFLATE
	libdeflate_free_decompressor(d);
	free(whole);
#endif

	stream = stream_size(plain);
	printf("inflate_stream_zlib1_bytes %llu\n", (unsigned long long)stream);
	if (!stream)
		return 1;
	for (size_t mib = 1; mib <= 16; mib *= 4)
		if (members(plain, mib, stream, dir))
			return 1;
	free(out);
	return 0;
usage:
	fprintf(stderr, "usage: inflate_cost [-w DIR] FILE.gz PLAIN\n");
	return 2;
}
