// SPDX-License-Identifier: GPL-2.0
/*
 * Output files: names from templates, atomic publish, no replacing and
 * no following links, gzip members, the repair of partial files a crash
 * left, retention. On a fresh temporary directory each.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "common/util.h"
#include "sinks/csv.h"
#include "sinks/publish.h"
#include "test.h"

/* 2026-11-30T07:14:20Z */
#define T0 (1796022860ull * 1000000000ull)

static char dir[64], notes[4096];

static void note(void *ctx, bool warning, const char *msg)
{
	snprintf(notes + strlen(notes), sizeof(notes) - strlen(notes), "%s\n",
		 msg);
}

static bool setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/bpmc-test-publish.XXXXXX");
	notes[0] = '\0';
	return ASSERT_TRUE(mkdtemp(dir) != NULL, "mkdtemp");
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ASSERT_OK(system(cmd), "rm -rf");
}

static struct publish_opts opts(const char *name)
{
	static char tmpl[256];

	snprintf(tmpl, sizeof(tmpl), "%s/%s", dir, name);
	return (struct publish_opts){
		.template = tmpl,
		.host = "node1",
		.plain_frame_scan = csv_frame_scan,
		.notice = note,
	};
}

static bool exists(const char *name)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return !lstat(path, &st);
}

static size_t nr_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t n = 0;

	while (d && (de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..") &&
		     strncmp(de->d_name, ".bpmc-", 6); /* a run's lock */
	if (d)
		closedir(d);
	return n;
}

/* One CSV interval as the sink writes it: rows, then intervals_lost. */
static const char header[] = CSV_HEADER "\n";
static const char interval[] =
	"2026-11-30T07:14:21.000Z,node1,1000,cgroup,1,\"/a,\n\"\"b\",,,,cpu-clock,5,5,100.0,,,\n"
	"2026-11-30T07:14:21.000Z,node1,1000,self,,,9,,bpmc," CSV_INTERVAL_END_EVENT
	",0,0,100.0,,,\n";

static void test_names(void)
{
	char in_dir[128];
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};

	if (!setup())
		return;
	o = opts("x-%h-%Y%m%dT%H%M%SZ.csv");
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	ASSERT_OK(publisher__open(p, T0, header, strlen(header), &err),
		  err.msg);
	ASSERT_STREQ(publisher__name(p), "x-node1-20261130T071420Z.csv",
		     "conversions and %h");
	ASSERT_TRUE(exists(".x-node1-20261130T071420Z.csv.partial"),
		    "written as a hidden partial");
	publisher__free(p);

	o = opts("fixed.csv.gz");
	o.rotate_s = 3600;
	if (ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg)) {
		ASSERT_TRUE(publisher__is_gzip(p), ".gz compresses");
		ASSERT_OK(publisher__open(p, T0, header, strlen(header), &err),
			  err.msg);
		ASSERT_STREQ(publisher__name(p),
			     "fixed-20261130T071420Z.csv.gz",
			     "rotating: the start time before the extension");
		publisher__free(p);
	}
	o = opts("x-%D.csv");
	ASSERT_EQ(publisher__new(&p, &o, T0, &err), -EINVAL, "%D makes a /");
	snprintf(in_dir, sizeof(in_dir), "%s/%%Y/x.csv", dir);
	o.template = in_dir;
	ASSERT_EQ(publisher__new(&p, &o, T0, &err), -EINVAL,
		  "no conversion in the directory");
	ASSERT_TRUE(strstr(err.msg, "file name") != NULL, err.msg);
out:
	teardown();
}

static void test_publish(void)
{
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};
	struct stat st;
	char path[256], buf[1024];
	int fd;

	if (!setup())
		return;
	o = opts("out.csv");
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	ASSERT_OK(publisher__open(p, T0, header, strlen(header), &err),
		  err.msg);
	ASSERT_TRUE(!exists("out.csv"), "not visible while written");
	ASSERT_OK(publisher__append(p, interval, strlen(interval), &err),
		  err.msg);
	ASSERT_OK(publisher__publish(p, &err), err.msg);
	ASSERT_TRUE(exists("out.csv") && !exists(".out.csv.partial"),
		    "renamed into place");
	snprintf(path, sizeof(path), "%s/out.csv", dir);
	if (ASSERT_OK(stat(path, &st), "stat"))
		ASSERT_EQ(st.st_mode & 0777, 0640, "created 0640");
	fd = open(path, O_RDONLY);
	buf[read(fd, buf, sizeof(buf) - 1)] = '\0';
	close(fd);
	ASSERT_EQ(strlen(buf), strlen(header) + strlen(interval), "content");

	/* A second file of the same second gets "-1", never the first's. */
	publisher__request_rotation(p);
	ASSERT_TRUE(publisher__rotation_due(p, T0), "rotation asked");
	ASSERT_OK(publisher__open(p, T0, header, strlen(header), &err),
		  err.msg);
	ASSERT_STREQ(publisher__name(p), "out-20261130T071420Z.csv",
		     "later files of a fixed name are stamped");
	/* The header alone is no file worth publishing. */
	ASSERT_OK(publisher__publish(p, &err), err.msg);
	ASSERT_EQ(nr_files(), 1, "header-only file deleted");
	publisher__free(p);
	/* The first name exists now: refused at start. */
	ASSERT_EQ(publisher__new(&p, &o, T0, &err), -EEXIST, "exists");
	ASSERT_TRUE(strstr(err.msg, "never replaces") != NULL, err.msg);
out:
	teardown();
}

/* A planted link at the output path is neither followed nor replaced. */
static void test_symlink(void)
{
	char target[256], link[256], buf[16] = "";
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};
	int fd;

	if (!setup())
		return;
	snprintf(target, sizeof(target), "%s/target", dir);
	fd = open(target, O_WRONLY | O_CREAT, 0600);
	ASSERT_EQ(write(fd, "keep", 4), 4, "target written");
	close(fd);
	snprintf(link, sizeof(link), "%s/out.csv", dir);
	ASSERT_OK(symlink(target, link), "symlink");
	o = opts("out.csv");
	ASSERT_EQ(publisher__new(&p, &o, T0, &err), -EEXIST, "link refused");
	/* A link planted where the partial will go: another name is used. */
	unlink(link);
	snprintf(link, sizeof(link), "%s/.out.csv.partial", dir);
	ASSERT_OK(symlink(target, link), "partial symlink");
	if (ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg)) {
		ASSERT_OK(publisher__open(p, T0, header, strlen(header), &err),
			  err.msg);
		ASSERT_STREQ(publisher__name(p), "out-1.csv", "next free name");
		publisher__free(p);
	}
	fd = open(target, O_RDONLY);
	ASSERT_EQ(read(fd, buf, sizeof(buf)), 4, "target length");
	close(fd);
	ASSERT_STREQ(buf, "keep", "target untouched");
	teardown();
}

/* One whole gzip stream, trailer and all, and nothing after it: what
 * gzip -t checks. */
static bool gzip_whole(const char *path)
{
	unsigned char in[65536], out[65536];
	z_stream z = {};
	int fd = open(path, O_RDONLY), ret;
	ssize_t n = fd >= 0 ? read(fd, in, sizeof(in)) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0 || inflateInit2(&z, 15 + 16) != Z_OK)
		return false;
	z.next_in = in;
	z.avail_in = n;
	do {
		z.next_out = out;
		z.avail_out = sizeof(out);
		ret = inflate(&z, Z_NO_FLUSH);
	} while (ret == Z_OK);
	inflateEnd(&z);
	return ret == Z_STREAM_END && !z.avail_in;
}

static bool gunzip(const char *path, char *out, size_t len)
{
	gzFile gz = gzopen(path, "rb");
	int n;

	if (!gz)
		return false;
	n = gzread(gz, out, len - 1);
	gzclose(gz);
	out[n > 0 ? n : 0] = '\0';
	return n > 0;
}

/* A crash leaves a torn last frame: the repair keeps the whole ones. */
static void crash_and_repair(const char *name, const char *torn, size_t n,
			     const char *final, bool gzip)
{
	struct publish_opts o = opts(name);
	struct publisher *p;
	struct error err = {};
	char path[256], text[4096];
	int fd;

	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		return;
	ASSERT_OK(publisher__open(p, T0, header, strlen(header), &err),
		  err.msg);
	for (int i = 0; i < 3; i++)
		ASSERT_OK(publisher__append(p, interval, strlen(interval),
					    &err),
			  err.msg);
	/* The interval in flight: its first bytes only, as a kill leaves. */
	snprintf(path, sizeof(path), "%s/.%s.partial", dir, final);
	fd = open(path, O_WRONLY | O_APPEND);
	ASSERT_EQ(write(fd, torn, n), (ssize_t)n, "torn frame");
	close(fd);
	publisher__free(p); /* "killed": no publish */

	ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg);
	ASSERT_OK(publisher__recover(p, &err), err.msg);
	publisher__free(p);
	ASSERT_TRUE(strstr(notes, "3 whole intervals kept") != NULL, notes);
	snprintf(path, sizeof(path), "%s/%s", dir, final);
	if (gzip) {
		ASSERT_TRUE(gzip_whole(path), "one whole gzip stream");
		ASSERT_TRUE(gunzip(path, text, sizeof(text)), "gunzip");
	} else {
		fd = open(path, O_RDONLY);
		text[read(fd, text, sizeof(text) - 1)] = '\0';
		close(fd);
	}
	ASSERT_EQ(strlen(text), strlen(header) + 3 * strlen(interval),
		  "header and three whole intervals");
	snprintf(path, sizeof(path), ".%s.partial", final);
	ASSERT_TRUE(!exists(path), "the partial is gone");
}

static void test_repair_plain(void)
{
	/* Cut inside a quoted field that holds a newline and a comma. */
	size_t cut = strchr(interval, '\n') - interval + 3;

	if (!setup())
		return;
	crash_and_repair("r.csv", interval, cut, "r.csv", false);
	teardown();
}

static void test_repair_gzip(void)
{
	char member[512];
	uLongf n = sizeof(member);

	if (!setup())
		return;
	/* Half a deflate stream: what a kill mid-write leaves. */
	compress2((Bytef *)member, &n, (const Bytef *)interval,
		  strlen(interval), 6);
	crash_and_repair("r.csv.gz", member, n / 2, "r.csv.gz", true);
	teardown();
}

/* Deflates data into fd, all of it out of z when flush says so. */
static bool deflate_to(z_stream *z, int fd, const void *data, size_t n,
		       int flush)
{
	unsigned char out[65536];
	size_t got;

	z->next_in = (Bytef *)data;
	z->avail_in = n;
	do {
		z->next_out = out;
		z->avail_out = sizeof(out);
		deflate(z, flush);
		got = sizeof(out) - z->avail_out;
		if (write(fd, out, got) != (ssize_t)got)
			return false;
	} while (!z->avail_out || z->avail_in);
	return true;
}

/* A torn .csv.gz partial: text, flushed as flush says, then zeros that
 * inflate to `zeros` bytes, cut off mid-stream (no flush, no trailer). */
static bool write_torn_gzip(const char *name, const char *text, int flush,
			    size_t zeros)
{
	static const unsigned char zero[1 << 20];
	char path[256];
	z_stream z = {};
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	if (fd < 0 || deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8,
				   Z_DEFAULT_STRATEGY) != Z_OK) {
		if (fd >= 0)
			close(fd);
		return false;
	}
	ok = deflate_to(&z, fd, text, strlen(text), flush);
	for (size_t done = 0, n; ok && done < zeros; done += n) {
		n = zeros - done < sizeof(zero) ? zeros - done : sizeof(zero);
		ok = deflate_to(&z, fd, zero, n, Z_NO_FLUSH);
	}
	deflateEnd(&z);
	close(fd);
	return ok;
}

static long max_rss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/*
 * The repair of a .csv.gz partial reads it in pieces: 256 MiB of zeros
 * after the last whole interval (2 GB took 1.97 GB of RSS before, issue
 * 26) cost a piece's memory, and the file is one whole gzip stream of
 * the whole intervals, whether a sync flush marks their end (the bytes
 * are copied) or not (inflated and deflated again).
 */
static void test_repair_gzip_bounded(void)
{
	static char text[4096];
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};
	char out[4096], path[256];
	long before;

	if (!setup())
		return;
	snprintf(text, sizeof(text), "%s%s%s%s", header, interval, interval,
		 interval);
	for (int sync = 1; sync >= 0; sync--) {
		notes[0] = '\0';
		ASSERT_TRUE(write_torn_gzip(".b.csv.gz.partial", text,
					    sync ? Z_SYNC_FLUSH : Z_NO_FLUSH,
					    sync ? 256u << 20 : 64u << 20),
			    "torn partial written");
		o = opts("b.csv.gz");
		before = max_rss_kb();
		if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
			break;
		ASSERT_OK(publisher__recover(p, &err), err.msg);
		publisher__free(p);
		if (sync)
			ASSERT_TRUE(
				max_rss_kb() - before < 64 * 1024,
				"the repair's peak RSS grew by less than 64 MiB");
		printf("  %s: peak RSS +%ld KiB\n",
		       sync ? "256 MiB of zeros cut, the bytes copied" :
			      "no sync flush, deflated again",
		       max_rss_kb() - before);
		ASSERT_TRUE(strstr(notes, "3 whole intervals kept") != NULL,
			    notes);
		snprintf(path, sizeof(path), "%s/b.csv.gz", dir);
		ASSERT_TRUE(gzip_whole(path), "one whole gzip stream");
		ASSERT_TRUE(gunzip(path, out, sizeof(out)), "gunzip");
		ASSERT_STREQ(out, text, "header and three whole intervals");
		ASSERT_TRUE(!exists(".b.csv.gz.partial"),
			    "the partial is gone");
		unlink(path);
	}
	teardown();
}

/* A partial with no whole interval is deleted, not published. */
static void test_repair_empty(void)
{
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};
	char path[256];
	int fd;

	if (!setup())
		return;
	snprintf(path, sizeof(path), "%s/.e.csv.partial", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0640);
	ASSERT_EQ(write(fd, header, 10), 10, "torn header");
	close(fd);
	/* Not ours: another template's partial stays. */
	snprintf(path, sizeof(path), "%s/.other.csv.partial", dir);
	close(open(path, O_WRONLY | O_CREAT, 0640));
	o = opts("e.csv");
	if (ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg)) {
		ASSERT_OK(publisher__recover(p, &err), err.msg);
		publisher__free(p);
	}
	ASSERT_TRUE(!exists(".e.csv.partial") && !exists("e.csv"),
		    "deleted, nothing published");
	ASSERT_TRUE(exists(".other.csv.partial"), "another pattern untouched");
	teardown();
}

static void test_rotation_due(void)
{
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};

	if (!setup())
		return;
	o = opts("t-%H%M%S.csv");
	o.rotate_s = 60;
	o.rotate_bytes = 4096;
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	ASSERT_TRUE(publisher__rotation_due(p, T0), "no file yet");
	publisher__open(p, T0, header, strlen(header), &err);
	/* T0 is 07:14:20: the minute ends at 07:15:00, not at T0 + 60 s. */
	ASSERT_TRUE(!publisher__rotation_due(p, T0 + 39 * 1000000000ull),
		    "same minute");
	ASSERT_TRUE(publisher__rotation_due(p, T0 + 40 * 1000000000ull),
		    "next wall-clock minute");
	for (int i = 0; i < 40; i++)
		publisher__append(p, interval, strlen(interval), &err);
	ASSERT_TRUE(publisher__rotation_due(p, T0), "past the size");
	publisher__free(p);
out:
	teardown();
}

/* --keep: the oldest of this pattern go; nothing else is touched. */
static void test_retention(void)
{
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};
	char path[256];

	if (!setup())
		return;
	snprintf(path, sizeof(path), "%s/unrelated.csv", dir);
	close(open(path, O_WRONLY | O_CREAT, 0640));
	snprintf(path, sizeof(path), "%s/k-node2-20261130T071420Z.csv", dir);
	close(open(path, O_WRONLY | O_CREAT, 0640)); /* another host's */
	o = opts("k-%h-%Y%m%dT%H%M%SZ.csv");
	o.keep = 2;
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	for (int i = 0; i < 4; i++) {
		publisher__open(p, T0 + i * 1000000000ull, header,
				strlen(header), &err);
		publisher__append(p, interval, strlen(interval), &err);
		ASSERT_OK(publisher__publish(p, &err), err.msg);
	}
	publisher__free(p);
	ASSERT_TRUE(!exists("k-node1-20261130T071420Z.csv") &&
			    !exists("k-node1-20261130T071421Z.csv"),
		    "the two oldest deleted");
	ASSERT_TRUE(exists("k-node1-20261130T071422Z.csv") &&
			    exists("k-node1-20261130T071423Z.csv"),
		    "the two newest kept");
	ASSERT_TRUE(exists("unrelated.csv"), "another name untouched");
	ASSERT_TRUE(exists("k-node2-20261130T071420Z.csv"),
		    "another host's untouched");
out:
	teardown();
}

/* A file of n bytes, its mtime set to t. */
static void plant(const char *name, size_t n, time_t t)
{
	char path[512];
	struct timespec ts[2] = { { .tv_sec = t }, { .tv_sec = t } };
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640);
	if (n && ftruncate(fd, n))
		ASSERT_TRUE(false, "ftruncate");
	close(fd);
	utimensat(AT_FDCWD, path, ts, 0);
}

/* One file published at T0 + i seconds. */
static void publish_one(struct publisher *p, int i)
{
	struct error err = {};

	ASSERT_OK(publisher__open(p, T0 + i * 1000000000ull, header,
				  strlen(header), &err),
		  err.msg);
	ASSERT_OK(publisher__append(p, interval, strlen(interval), &err),
		  err.msg);
	ASSERT_OK(publisher__publish(p, &err), err.msg);
}

/*
 * Retention orders by the time in the name, not the mtime, and never
 * deletes the file it has just published (issue 26: a look-alike with a
 * 2099 mtime made --keep 1 delete every file as it was written).
 */
static void test_retention_order(void)
{
	const time_t y2099 = 4070908800;
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};

	if (!setup())
		return;
	plant("k-node1-20200101T000000Z.csv", 2, y2099);
	o = opts("k-%h-%Y%m%dT%H%M%SZ.csv");
	o.keep = 1;
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	publish_one(p, 0);
	ASSERT_TRUE(exists("k-node1-20261130T071420Z.csv"),
		    "the file just published stays");
	ASSERT_TRUE(!exists("k-node1-20200101T000000Z.csv"),
		    "the look-alike goes: 2020 by its name");
	publish_one(p, 1);
	ASSERT_TRUE(!exists("k-node1-20261130T071420Z.csv") &&
			    exists("k-node1-20261130T071421Z.csv"),
		    "superseded, the first goes");
	/* A name from the future: this run's newest still stays. */
	plant("k-node1-20991231T000000Z.csv", 2, 0);
	publish_one(p, 2);
	ASSERT_TRUE(exists("k-node1-20261130T071422Z.csv"),
		    "the file just published stays beside a later name");
	ASSERT_EQ(nr_files(), 1, "one file kept");
	publisher__free(p);

	/* --max-disk beside a larger look-alike with a later mtime. */
	plant("k-node1-20200101T000000Z.csv", 100000, y2099);
	o.keep = 0;
	o.max_disk = 50000;
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	publish_one(p, 10);
	ASSERT_TRUE(exists("k-node1-20261130T071430Z.csv"),
		    "--max-disk keeps the file just published");
	ASSERT_TRUE(!exists("k-node1-20200101T000000Z.csv"),
		    "--max-disk: the look-alike goes");
	publisher__free(p);
out:
	teardown();
}

/*
 * Files of one second: each takes a higher "-N" than the last, never
 * the lower one retention freed (found under load: the fifth file took
 * the name --keep 3 had just deleted, sorted as the oldest, and was
 * deleted at the next rotation with its intervals).
 */
static void test_retention_same_second(void)
{
	static const char *const kept[] = {
		"k-node1-20261130T071420Z-2.csv",
		"k-node1-20261130T071420Z-3.csv",
		"k-node1-20261130T071420Z-4.csv",
	};
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};

	if (!setup())
		return;
	o = opts("k-%h-%Y%m%dT%H%M%SZ.csv");
	o.keep = 3;
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	for (int i = 0; i < 5; i++)
		publish_one(p, 0);
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		ASSERT_TRUE(exists(kept[i]), kept[i]);
	ASSERT_EQ(nr_files(), 3, "three files kept: the last three made");
	publisher__free(p);
out:
	teardown();
}

/*
 * A conversion matches only what it can produce, and "-N" only as bpmc
 * writes it: --keep 1 leaves every other name alone.
 */
static void test_retention_lookalikes(void)
{
	static const char *const keep[] = {
		"k-node1-important data, do not delete-20200101T000000Z.csv",
		"k-node1-Thursday-20200101T000000Z.csv",
		"k-node1-Thu-20200101T000000Z-01.csv",
		"k-node1-Thu-20200101T000000Z-1-1.csv",
		"k-node1-Thu-20200101T000000Z-12345678901234567890.csv",
		"k-node1-Thu-20200101T000000Z-1000.csv",
		"k-node1-Thu-20201301T000000Z.csv",
		"k-node1-Thu-20200101T000000Z.csv.gz",
	};
	static const char *const go[] = {
		"k-node1-Thu-20200101T000000Z.csv",
		"k-node1-Wed-20200101T000000Z-7.csv",
	};
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};

	if (!setup())
		return;
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		plant(keep[i], 2, 0);
	for (size_t i = 0; i < ARRAY_SIZE(go); i++)
		plant(go[i], 2, 0);
	o = opts("k-%h-%a-%Y%m%dT%H%M%SZ.csv");
	o.keep = 1;
	if (ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg)) {
		publish_one(p, 0);
		publisher__free(p);
	}
	for (size_t i = 0; i < ARRAY_SIZE(keep); i++)
		ASSERT_TRUE(exists(keep[i]), keep[i]);
	for (size_t i = 0; i < ARRAY_SIZE(go); i++)
		ASSERT_TRUE(!exists(go[i]), go[i]);
	ASSERT_TRUE(exists("k-node1-Mon-20261130T071420Z.csv"), notes);

	/* %p makes AM or PM, nothing else. */
	plant("k-node1-x", 2, 0);
	plant("k-node1-", 2, 0);
	plant("k-node1-PM", 2, 0);
	o = opts("k-%h-%p");
	o.keep = 1;
	if (ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg)) {
		publish_one(p, 0);
		publisher__free(p);
	}
	ASSERT_TRUE(exists("k-node1-x") && exists("k-node1-"),
		    "%p: other names stay");
	ASSERT_TRUE(exists("k-node1-AM") && !exists("k-node1-PM"),
		    "%p: AM published, PM deleted");
	teardown();
}

/* Conversions that make a '/' or a control character, or none that
 * strftime knows, are refused; retention refuses what it cannot tell. */
static void test_template_refused(void)
{
	static const struct {
		const char *name;
		bool keep;
		const char *why;
	} bad[] = {
		{ "x-%n.csv", false, "newline" },
		{ "x-%t.csv", false, "tab" },
		{ "x-%_t.csv", false, "tab" },
		{ "x-%D.csv", false, "'/'" },
		{ "x-%Ex.csv", false, "'/'" },
		{ "x-%q.csv", false, "no strftime conversion" },
		{ "x-%-h.csv", false, "no strftime conversion" },
		{ "x-%-d.csv", true, "--keep" },
		{ "x-%10Y.csv", true, "--keep" },
		{ "x-%Ec.csv", true, "--keep" },
	};
	struct publish_opts o;
	struct publisher *p;
	struct error err = {};

	if (!setup())
		return;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		o = opts(bad[i].name);
		o.keep = bad[i].keep;
		ASSERT_EQ(publisher__new(&p, &o, T0, &err), -EINVAL,
			  bad[i].name);
		ASSERT_TRUE(strstr(err.msg, bad[i].why) != NULL, err.msg);
	}
	/* Without retention, flags are strftime's business. */
	o = opts("x-%-d-%c.csv");
	if (ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		publisher__free(p);
	teardown();
}

/*
 * One run per template and directory (issue 26: two runs' --keep
 * deleted each other's files): a second publisher whose names could be
 * the first's is refused while the first holds its lock, one whose
 * names cannot is not, and a lock no run holds is stale.
 */
static void test_one_run(void)
{
	struct publish_opts o, o2;
	struct publisher *p, *q;
	struct error err = {};
	char path[256];
	int fd;

	if (!setup())
		return;
	/* A run killed -9: its lock file stays, held by no one. */
	snprintf(path, sizeof(path), "%s/.bpmc-lock.999999.1.c.k-node1-", dir);
	fd = open(path, O_WRONLY | O_CREAT, 0640);
	ASSERT_TRUE(fd >= 0, "stale lock");
	close(fd);
	o = opts("k-%h-%Y%m%dT%H%M%SZ.csv");
	o.keep = 1;
	if (!ASSERT_OK(publisher__new(&p, &o, T0, &err), err.msg))
		goto out;
	ASSERT_TRUE(!exists(".bpmc-lock.999999.1.c.k-node1-"),
		    "a stale lock goes");
	o2 = opts("k-%h-%Y%m%dT%H%M%SZ.csv");
	ASSERT_EQ(publisher__new(&q, &o2, T0, &err), -EBUSY,
		  "the same template: refused");
	ASSERT_TRUE(strstr(err.msg, "another bpmc record (pid") != NULL,
		    err.msg);
	o2 = opts("k-%Y.csv");
	ASSERT_EQ(publisher__new(&q, &o2, T0, &err), -EBUSY,
		  "k-%Y.csv could be k-node1-...: refused");
	o2 = opts("other-%h-%Y%m%dT%H%M%SZ.csv");
	if (ASSERT_OK(publisher__new(&q, &o2, T0, &err), err.msg))
		publisher__free(q);
	o2 = opts("k-%h-%Y%m%dT%H%M%SZ.csv.gz");
	if (ASSERT_OK(publisher__new(&q, &o2, T0, &err),
		      "another extension cannot collide"))
		publisher__free(q);
	publisher__free(p);
	o2 = opts("k-%h-%Y%m%dT%H%M%SZ.csv");
	if (ASSERT_OK(publisher__new(&q, &o2, T0, &err),
		      "once the first run is over"))
		publisher__free(q);
	ASSERT_EQ(nr_files(), 0, "no file left");
	snprintf(path, sizeof(path), "ls -A %s | grep -q lock", dir);
	ASSERT_TRUE(system(path) != 0, "no lock file left");
out:
	teardown();
}

/*
 * The repair's scan is fed a file in pieces: wherever they are cut (in
 * a quoted field that holds a comma and a newline, in the header), it
 * finds the same end as fed whole; anything but a bpmc CSV has none.
 */
static void test_frame_scan_pieces(void)
{
	static char text[4096];
	size_t whole = strlen(header) + 3 * strlen(interval), len;
	struct frame_scan s;

	snprintf(text, sizeof(text), "%s%s%s%s%.40s", header, interval,
		 interval, interval, interval);
	len = strlen(text);
	for (size_t piece = 1; piece <= len; piece++) {
		s = (struct frame_scan){};
		for (size_t at = 0; at < len; at += piece)
			csv_frame_scan(&s, text + at,
				       len - at < piece ? len - at : piece);
		if (!ASSERT_EQ(s.end, whole, "the end of the third interval") ||
		    !ASSERT_EQ(s.frames, 4, "the header and three intervals")) {
			printf("  fed in pieces of %zu bytes\n", piece);
			break;
		}
	}
	s = (struct frame_scan){};
	csv_frame_scan(&s, "time,host,x\n", 12);
	ASSERT_EQ(s.end, 0, "another header: no frame");
	ASSERT_EQ(s.frames, 0, "another header: no frame");
}

static const struct subtest tests[] = {
	{ "names", test_names },
	{ "publish", test_publish },
	{ "symlink", test_symlink },
	{ "repair_plain", test_repair_plain },
	{ "repair_gzip", test_repair_gzip },
	{ "repair_gzip_bounded", test_repair_gzip_bounded },
	{ "repair_empty", test_repair_empty },
	{ "rotation_due", test_rotation_due },
	{ "retention", test_retention },
	{ "retention_order", test_retention_order },
	{ "retention_same_second", test_retention_same_second },
	{ "retention_lookalikes", test_retention_lookalikes },
	{ "template_refused", test_template_refused },
	{ "one_run", test_one_run },
	{ "frame_scan_pieces", test_frame_scan_pieces },
	{ 0 },
};

int main(int argc, char **argv)
{
	return test_main(argc, argv, tests);
}
