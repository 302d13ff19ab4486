/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The publisher's parts (sinks/publish.h): its state, and what each of
 * its files gives the others. publish.c: the life of one file;
 * publish_names.c: the template and the names it makes; publish_gzip.c:
 * the gzip stream; publish_retention.c: --keep and --max-disk;
 * publish_recover.c: the repair of partial files an earlier run left.
 */
#ifndef BPMC_SINKS_PUBLISH_PARTS_H
#define BPMC_SINKS_PUBLISH_PARTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "common/error.h"
#include "sinks/publish.h"

#define NAME_LEN 256
#define PARTIAL_SUFFIX ".partial"
/* A repair in progress: a stale one (a kill during the repair) goes. */
#define REPAIR_SUFFIX ".repair"
/* Data is synced at most this often while a file grows; a crash loses
 * at most the interval in flight plus what came since the last sync. */
#define SYNC_EVERY_NS 1000000000ull

struct publisher {
	struct publish_opts o;
	char dir[4096];
	char base[NAME_LEN]; /* the template's file name */
	char ext[16]; /* ".csv.gz", ".csv" or "" */
	bool has_conversion; /* base holds a strftime conversion */
	bool gzip;
	int dirfd;
	int lockfd; /* held for the run (publish_lock.c), or -1 */
	char lock_name[256];
	unsigned files_made; /* by this run: later ones need a stamp */
	bool rotation_requested;
	/* The last file published: retention never takes it. */
	char last_published[NAME_LEN];
	/* The last file's name without "-N", and its N: a later file of
	 * the same second takes a higher N, never a lower one retention
	 * freed (it would sort as the oldest and be deleted next). */
	char last_unsuffixed[NAME_LEN];
	unsigned last_seq;
	/* The open file. */
	int fd; /* -1: none */
	char name[NAME_LEN]; /* its final name */
	char partial[NAME_LEN + 16];
	uint64_t period; /* start_s / rotate_s of its first interval */
	uint64_t size; /* bytes of whole frames */
	unsigned frames;
	uint64_t last_sync_ns;
	z_stream z;
	z_stream snap; /* z after the last whole frame */
	bool z_ready, snap_ready;
	char *zbuf;
	size_t zcap;
};

void publish_notice(const struct publisher *p, bool warning, const char *fmt,
		    ...) __attribute__((format(printf, 3, 4)));

/* publish_names.c */
bool publish_ends_with(const char *s, const char *suffix);
bool publish_has_ext(const char *s, const char *ext);
const char *publish_ext_of(const char *name);
bool publish_needs_stamp(const struct publisher *p);
int publish_make_name(const struct publisher *p, uint64_t start_ns,
		      unsigned seq, char *out, size_t len);
/* What a name of this template says: the time its conversions give
 * (0 where it has none), bpmc's "-N" and where that starts. */
struct name_info {
	long long time;
	unsigned seq;
	size_t stem_len;
};
bool publish_name_parse(const struct publisher *p, const char *name,
			struct name_info *info);
bool publish_name_matches(const struct publisher *p, const char *name);
int publish_make_dirs(char *path);
int publish_split_template(struct publisher *p, struct error *err);

/* publish.c */
int publish_write_all(int fd, const char *buf, size_t n, uint64_t at);
int publish_partial(struct publisher *p, int fd, const char *partial,
		    char *final, size_t len);

/* publish_gzip.c */
int publish_gzip_deflate(struct publisher *p, const char *data, size_t len,
			 int flush, const char **out, size_t *n);
int publish_gzip_snapshot(struct publisher *p);
int publish_gzip_rollback(struct publisher *p);
int publish_gzip_start(struct publisher *p);
int publish_gzip_trailer(struct publisher *p);
/* What the read of a cut gzip stream found. */
struct gzip_cut {
	struct frame_scan scan; /* of what it inflates */
	uint64_t inflated;
	bool complete; /* the trailer was there (a kill before the rename) */
	uint64_t member_len; /* inflated bytes of the last member */
	/* A byte-aligned block end right after the last whole frame: the
	 * compressed bytes before it (0: none), and the inflated bytes,
	 * the member's CRC and length there. */
	uint64_t in_at, out_at, in_len;
	uint32_t in_crc;
};
int publish_gunzip_scan(const char *data, size_t len, frame_scan_fn fn,
			struct gzip_cut *cut);
int publish_gzip_cut_copy(int fd, const char *data, const struct gzip_cut *cut);
int publish_gzip_cut_rewrite(int fd, const char *data, size_t len,
			     uint64_t keep);

/* publish_lock.c */
int publish_lock(struct publisher *p, struct error *err);
void publish_unlock(struct publisher *p);

/* publish_retention.c */
int publish_retention(struct publisher *p);

#endif
