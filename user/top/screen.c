// SPDX-License-Identifier: GPL-2.0
#include <curses.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/escape.h"
#include "common/strbuf.h"
#include "common/util.h"
#include "top/top.h"
#include "top/view.h"

struct top {
	struct top_config cfg;
	struct sink sink;
	/* Rows go into fill; at the interval's end it becomes shown,
	 * unless the display is frozen. */
	struct top_table tables[2];
	struct top_table *fill, *shown;
	bool have_shown;
	struct top_view view;
	bool view_ready;
	SCREEN *screen;
	struct top_lines lines;
};

/* The counted events, as the first interval says them. */
static void view_ready(struct top *t, const struct interval_info *info)
{
	const char *events[TOP_MAX_EVENTS];
	int n = 0;

	for (size_t i = 0; i < info->nr_events && n < TOP_MAX_EVENTS; i++)
		if (info->events[i].supported)
			events[n++] = info->events[i].event;
	top_view__init(&t->view, events, n);
	t->view_ready = true;
}

static int event_of(const struct top *t, const char *name)
{
	for (int e = 0; e < t->view.nr_events; e++)
		if (!strcmp(t->view.events[e], name))
			return e;
	return -1;
}

static int top_begin_interval(struct sink *s, const struct interval_info *info)
{
	struct top *t = s->priv;

	if (!t->view_ready)
		view_ready(t, info);
	top_table__reset(t->fill);
	t->fill->seconds = info->length_ns / 1e9;
	t->fill->end_realtime_ns = info->end_realtime_ns;
	return 0;
}

static int top_write_row(struct sink *s, const struct row *r)
{
	struct top *t = s->priv;
	int ev;

	if (!strcmp(r->scope, "self")) {
		if (!strcmp(r->event, "bpf_run_time_ns"))
			t->fill->bpf_run_ns += r->count;
		else if (!strcmp(r->event, "cpu_user_ns") ||
			 !strcmp(r->event, "cpu_system_ns"))
			t->fill->self_cpu_ns += r->count;
		return 0;
	}
	ev = event_of(t, r->event);
	if (ev < 0)
		return 0;
	if (!strcmp(r->scope, "system")) {
		t->fill->system[ev] += r->count;
		t->fill->running_pct[ev] = r->running_pct;
		return 0;
	}
	if (top_table__add(t->fill, r, ev))
		return error__set(&s->error, ENOMEM,
				  "out of memory for top's keys");
	return 0;
}

static int ensure_lines(struct top *t, int max)
{
	char(*text)[1024];

	if (max <= t->lines.max)
		return 0;
	text = realloc(t->lines.text, max * sizeof(*text));
	if (!text)
		return -ENOMEM;
	t->lines.text = text;
	t->lines.max = max;
	return 0;
}

static void draw(struct top *t)
{
	const struct top_table *shown = t->have_shown ? t->shown : NULL;
	int attr;

	if (!t->screen || ensure_lines(t, LINES))
		return;
	top_view__layout(&t->view, shown, COLS, LINES, &t->lines);
	erase();
	for (int i = 0; i < t->lines.nr && i < LINES; i++) {
		attr = i == t->lines.header_line ? A_REVERSE :
		       i == t->lines.cursor_line ? A_BOLD | A_UNDERLINE :
						   A_NORMAL;
		attrset(attr);
		mvaddstr(i, 0, t->lines.text[i]);
	}
	attrset(A_NORMAL);
	refresh();
}

static int print_batch(struct top *t)
{
	int err = ensure_lines(t, t->shown->nr + 16);

	if (err)
		return error__set(&t->sink.error, -err,
				  "out of memory for top's lines");
	top_view__layout(&t->view, t->shown, t->cfg.batch_width, 0, &t->lines);
	/* All but the key help: a script has no keys. */
	for (int i = 0; i < t->lines.nr - 1; i++)
		fprintf(t->cfg.batch, "%s\n", t->lines.text[i]);
	fputc('\n', t->cfg.batch);
	if (fflush(t->cfg.batch) || ferror(t->cfg.batch))
		return error__set(&t->sink.error, EIO,
				  "cannot write top's batch output: %s",
				  strerror(errno));
	return 0;
}

static int top_end_interval(struct sink *s)
{
	struct top *t = s->priv;
	struct top_table *tmp;

	if (top_table__finish(t->fill))
		return error__set(&s->error, ENOMEM,
				  "out of memory for top's keys");
	if (!t->view.frozen || !t->have_shown) {
		tmp = t->shown;
		t->shown = t->fill;
		t->fill = tmp;
		t->have_shown = true;
	}
	if (t->cfg.batch)
		return print_batch(t);
	draw(t);
	return 0;
}

static int top_close(struct sink *s)
{
	return 0; /* top__free() frees it all */
}

static const struct sink_ops top_ops = {
	.name = "top",
	.begin_interval = top_begin_interval,
	.write_row = top_write_row,
	.end_interval = top_end_interval,
	.close = top_close,
};

int top__new(struct top **out, const struct top_config *cfg, struct error *err)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t)
		return error__set(err, ENOMEM, "out of memory");
	t->cfg = *cfg;
	t->fill = &t->tables[0];
	t->shown = &t->tables[1];
	t->sink.ops = &top_ops;
	t->sink.priv = t;
	t->view.host = cfg->host;
	t->view.nr_cpus = cfg->nr_cpus;
	t->view.interval_ms = cfg->interval_ms;
	t->view.by = cfg->by;
	t->view.has_threads = cfg->threads;
	if (cfg->filter)
		snprintf(t->view.filter, sizeof(t->view.filter), "%s",
			 cfg->filter);
	*out = t;
	return 0;
}

struct sink *top__sink(struct top *t)
{
	return &t->sink;
}

int top__start_screen(struct top *t, struct error *err)
{
	const char *term = getenv("TERM");

	t->screen = newterm(NULL, stdout, stdin);
	if (!t->screen)
		return error__set(
			err, ENOTTY,
			"cannot drive the terminal '%s' (TERM): use --batch",
			term ? term : "");
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	set_escdelay(25);
	draw(t);
	return 0;
}

void top__say(struct top *t, const char *msg)
{
	char line[sizeof(t->view.message) * 4];
	struct strbuf b;
	size_t n;

	/* Escaped: it may quote a cgroup's name. */
	strbuf__init(&b, line, sizeof(line), 0);
	escape_text(&b, msg);
	n = strnlen(line, sizeof(t->view.message) - 1);
	memcpy(t->view.message, line, n); /* a cut sequence is skipped */
	t->view.message[n] = 0;
	draw(t);
}

void top__stop_screen(struct top *t)
{
	if (!t || !t->screen)
		return;
	endwin();
	delscreen(t->screen);
	t->screen = NULL;
}

static void edit_filter(struct top_view *v, int key)
{
	size_t n = strlen(v->prompt);

	if (key == 27) {
		v->prompting = false;
	} else if (key == '\n' || key == '\r' || key == KEY_ENTER) {
		memcpy(v->filter, v->prompt, sizeof(v->filter));
		v->prompting = false;
		v->cursor = 0;
	} else if (key == 21) { /* ^U, as in a shell */
		v->prompt[0] = 0;
	} else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
		if (n)
			v->prompt[n - 1] = 0;
	} else if (key >= 0x20 && key < 0x7f && n + 1 < sizeof(v->prompt)) {
		v->prompt[n] = key;
		v->prompt[n + 1] = 0;
	}
}

/* One key; true: quit. */
static bool apply_key(struct top *t, int key)
{
	struct top_view *v = &t->view;
	int last = top_view__nr_columns(v) - 1;

	v->message[0] = 0;
	if (v->prompting) {
		edit_filter(v, key);
		return false;
	}
	switch (key) {
	case 'q':
	case 'Q':
		return true;
	case '<':
	case ',':
		v->sort = v->sort > -1 ? v->sort - 1 : -1;
		break;
	case '>':
	case '.':
		v->sort = v->sort < last ? v->sort + 1 : last;
		break;
	case 'r':
		v->ascending = !v->ascending;
		break;
	case 'n':
		v->sort = -1;
		break;
	case 'g':
		top_view__next_group(v);
		break;
	case '/':
		v->prompting = true;
		memcpy(v->prompt, v->filter, sizeof(v->prompt));
		break;
	case 'e':
	case '\n':
	case '\r':
	case KEY_ENTER:
		top_view__toggle_expand(v, t->have_shown ? t->shown : NULL);
		break;
	case ' ':
	case 'f':
		v->frozen = !v->frozen;
		break;
	case KEY_UP:
	case 'k':
		v->cursor = v->cursor > 0 ? v->cursor - 1 : 0;
		break;
	case KEY_DOWN:
	case 'j':
		v->cursor++;
		break;
	case KEY_PPAGE:
		v->cursor = v->cursor > LINES / 2 ? v->cursor - LINES / 2 : 0;
		break;
	case KEY_NPAGE:
		v->cursor += LINES / 2;
		break;
	case KEY_RESIZE:
	case ERR:
		break;
	default:
		snprintf(v->message, sizeof(v->message),
			 "unknown key: q quits, < > sort, g groups, / filters");
	}
	return false;
}

bool top__wait(struct top *t, uint64_t until_ns)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	bool seen = false;
	int key, timeout, rc;

	if (!t->screen) {
		struct timespec ts = { .tv_sec = until_ns / 1000000000ull,
				       .tv_nsec = until_ns % 1000000000ull };

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		return false;
	}
	timeout = now >= until_ns ? 0 :
				    (int)((until_ns - now + 999999) / 1000000);
	/* EINTR too: a signal to stop, or SIGWINCH, whose KEY_RESIZE
	 * getch() then returns. */
	rc = poll(&p, 1, timeout);
	if (!rc)
		return false;
	/* The terminal is gone: nobody is left to look. */
	if (rc > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL)))
		return true;
	while ((key = getch()) != ERR) {
		if (apply_key(t, key))
			return true;
		seen = true;
	}
	if (seen)
		draw(t);
	return false;
}

void top__free(struct top *t)
{
	if (!t)
		return;
	top__stop_screen(t);
	top_table__free(&t->tables[0]);
	top_table__free(&t->tables[1]);
	top_view__free(&t->view);
	free(t->lines.text);
	free(t);
}
