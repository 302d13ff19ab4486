#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns libpfm's tests/validate_x86.c into tests/data/libpfm_validate_x86.tsv.

    scripts/libpfm_validate_x86_tsv.py PATH/TO/validate_x86.c > tests/data/libpfm_validate_x86.tsv

Reads only the values of its x86_test_events[] table (name, expected
return code, count, codes[], fstr and the line each entry starts on) and
writes them one entry a line, under a header that names the source; no
code of libpfm is copied. The header below is for the libpfm 4.13.0
release: edit SOURCE and TARBALL_SHA256 when converting another one.
"""
import hashlib
import re
import sys

SOURCE = """\
# libpfm's own golden table of x86 encodings, kept as test data for
# tests/unit/test_validate_x86.c. Values only; no code.
#
# Source: libpfm 4.13.0, the release bpmc builds against (perfmon2/libpfm4,
# tag v4.13.0), from Debian's source package libpfm4 4.13.0-1, the
# x86_test_events[] table of libpfm-4.13.0/tests/validate_x86.c in its
# upstream tarball libpfm4_4.13.0.orig.tar.gz. sha256 of each:
#   {sha}  validate_x86.c
#   {tar_sha}  the tarball
# Converted by scripts/libpfm_validate_x86_tsv.py.
#
# That file's licence (MIT style), whose notice goes with these values:
#
#   Copyright (c) 2010 Google, Inc
#   Contributed by Stephane Eranian <eranian@gmail.com>
#
#   Permission is hereby granted, free of charge, to any person obtaining a
#   copy of this software and associated documentation files (the
#   "Software"), to deal in the Software without restriction, including
#   without limitation the rights to use, copy, modify, merge, publish,
#   distribute, sublicense, and/or sell copies of the Software, and to
#   permit persons to whom the Software is furnished to do so, subject to
#   the following conditions:
#
#   The above copyright notice and this permission notice shall be included
#   in all copies or substantial portions of the Software.
#
#   THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
#   OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
#   MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
#   NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
#   DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
#   OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
#   USE OR OTHER DEALINGS IN THE SOFTWARE.
#
# Every entry is kept: all {entries} name a table libpfm 4.13 has (in any
# case, as libpfm matches them: a few are written SNBEP_UNC_PCU::).
# Columns, tab-separated:
#   line   the line of validate_x86.c the entry starts on (its .line)
#   name   as libpfm's test encodes it, TABLE::NAME...
#   ret    the return code libpfm expects (PFM_SUCCESS or PFM_ERR_*)
#   count  how many codes it expects
#   codes  codes[0],codes[1],... in hex (as many as the source sets), or -
#   fstr   the fully qualified name it expects, or - when it names none
# libpfm's test asks for PFM_OS_NONE with privilege levels PFM_PLM0 |
# PFM_PLM3, so codes[0] is the raw PERFEVTSEL value, usr/os/int/en bits
# included (NetBurst: codes[0] the ESCR, codes[1] the CCCR).
"""

# The tarball the file came from (Debian's .dsc lists the same).
TARBALL_SHA256 = \
    "d18b97764c755528c1051d376e33545d0eb60c6ebf85680436813fa5b04cc3d1"

ENTRY = re.compile(r"\{\s*SRC_LINE\s*,(.*?)\n\s*\}\s*,", re.S)
FIELD = re.compile(
    r'\.(name|fstr)\s*=\s*"((?:[^"\\]|\\.)*)"'
    r"|\.(ret|count)\s*=\s*([A-Za-z_0-9]+)"
    r"|\.codes\[(\d+)\]\s*=\s*([0-9a-fA-Fx]+)[uUlL]*"
)


def strip_comments(text):
    # Keeps the newlines, so that offsets still give line numbers.
    return re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group(0)),
                  text, flags=re.S)


def entries(text):
    start = text.index("x86_test_events[]")
    end = text.index("\n};", start)
    body = strip_comments(text[:end])
    for m in ENTRY.finditer(body, start):
        line = body.count("\n", 0, m.start()) + 1
        e = {"line": line, "ret": "PFM_SUCCESS", "count": 0, "codes": {},
             "fstr": None}
        for f in FIELD.finditer(m.group(1)):
            if f.group(1):
                if "\\" in f.group(2):
                    sys.exit("line %d: escapes in a string" % line)
                e[f.group(1)] = f.group(2)
            elif f.group(3) == "ret":
                e["ret"] = f.group(4)
            elif f.group(3) == "count":
                e["count"] = int(f.group(4), 0)
            else:
                e["codes"][int(f.group(5))] = int(f.group(6), 0)
        if "name" not in e:
            sys.exit("line %d: entry without a name" % line)
        yield e


def main():
    raw = open(sys.argv[1], "rb").read()
    all_entries = list(entries(raw.decode()))
    if raw.decode().count("{ SRC_LINE") != len(all_entries):
        sys.exit("%d entries read, %d in the file" %
                 (len(all_entries), raw.decode().count("{ SRC_LINE")))
    out = [SOURCE.format(sha=hashlib.sha256(raw).hexdigest(),
                         tar_sha=TARBALL_SHA256, entries=len(all_entries))]
    for e in all_entries:
        n = max(e["codes"]) + 1 if e["codes"] else 0
        codes = ",".join("0x%x" % e["codes"].get(i, 0) for i in range(n))
        for field in (e["name"], e["fstr"] or ""):
            if "\t" in field or "\n" in field:
                sys.exit("line %d: a tab or newline in a string" % e["line"])
        out.append("%d\t%s\t%s\t%d\t%s\t%s\n" %
                   (e["line"], e["name"], e["ret"], e["count"],
                    codes or "-", e["fstr"] or "-"))
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
