#!/usr/bin/env python3
"""Strict RFC 4180 reading of bpmc CSV files (plain or .gz), for the tests.

csv_fields.py FILE...: each record on one line, fields joined by the
unit separator (0x1f), CR and LF inside fields written as \\r and \\n, so
that awk can read columns by header name whatever the fields hold. A
file that does not parse (a torn row, a stray quote, a record with
another number of fields than its header) is an error: exit 1, naming
the file and the line.
"""
import csv
import gzip
import io
import sys


def records(path):
    opener = gzip.open if path.lower().endswith(".gz") else open
    with opener(path, "rt", newline="", encoding="utf-8") as f:
        reader = csv.reader(f, strict=True)
        header = None
        for rec in reader:
            if header is None:
                header = rec
            elif len(rec) != len(header):
                raise csv.Error(f"line {reader.line_num}: {len(rec)} fields, "
                                f"the header has {len(header)}")
            yield rec


def main():
    out = io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="\n")
    for path in sys.argv[1:]:
        try:
            for rec in records(path):
                out.write("\x1f".join(
                    f.replace("\r", "\\r").replace("\n", "\\n") for f in rec))
                out.write("\n")
        except (csv.Error, OSError, EOFError, UnicodeDecodeError) as e:
            out.flush()
            print(f"csv_fields: {path}: {e}", file=sys.stderr)
            return 1
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
