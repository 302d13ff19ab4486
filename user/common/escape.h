/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text as bpmc writes it, in every sink (docs/csv-schema.md, "Text"):
 * valid UTF-8 passes through; every byte that is not part of a valid
 * UTF-8 sequence, and every control character (U+0000 to U+001F and
 * U+007F), is written as \xHH (two upper-case hex digits); a backslash
 * is written as \\. The result is valid UTF-8 without a control
 * character, so one row is one line, and the original bytes come back
 * by replacing \\ with \ and \xHH with the byte HH.
 */
#ifndef BPMC_COMMON_ESCAPE_H
#define BPMC_COMMON_ESCAPE_H

#include <stddef.h>

#include "common/strbuf.h"

/*
 * The length of the valid UTF-8 sequence at s (1 to 4), or 0: overlong
 * forms, surrogates and code points past U+10FFFF are not valid. Reads no
 * byte past a NUL.
 */
size_t utf8_len(const unsigned char *s);

/* Appends the escaped text of s (NUL-terminated). */
void escape_text(struct strbuf *b, const char *s);
/*
 * The same with every quote character doubled on the way (a CSV field's
 * '"'), in one pass: exports write hundreds of thousands of fields a
 * second. quote '\0' doubles nothing.
 */
void escape_text_quoted(struct strbuf *b, const char *s, char quote);
/*
 * For a message on the terminal: escape_text() without escaping the
 * backslash, so that a path or an option's own backslashes read as typed.
 */
void escape_message(struct strbuf *b, const char *s);
/*
 * The inverse: writes the original bytes of escaped text into out (len
 * bytes, NUL added); -EINVAL on a malformed escape.
 */
int unescape_text(const char *s, char *out, size_t len, size_t *n);

/*
 * A Prometheus label value (text format 0.0.4 and OpenMetrics 1.0), a
 * different escaping from the one above: the value must read back as the
 * real name, so valid UTF-8 passes as it is, control characters too, and
 * only a backslash, a double quote and a line feed are escaped (\\, \",
 * \n). Prometheus refuses a scrape with invalid UTF-8 in a label, so a
 * byte that is not part of valid UTF-8 becomes the four characters \xHH
 * of the value (written \\xHH), as in the CSV; unlike the CSV, this is not
 * reversible when the name itself holds such text.
 */
void escape_prom_label(struct strbuf *b, const char *s);

#endif
