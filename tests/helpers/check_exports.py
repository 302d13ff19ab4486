#!/usr/bin/env python3
"""Checks bpmc's published files the way a fleet's consumer would.

check_exports.py FILE...: every file must be whole: a .gz passes a full
decompression with its CRCs, every file parses with a strict RFC 4180
reader with as many fields in every record as in its header, starts with
its meta rows, and holds whole intervals only: the rows of an interval
end with its `self` `intervals_lost` row, and nothing follows the last.
Prints one line per interval: "PID END_MS INTERVAL_MS LOST FILE" (PID
from the file's bpmc_pid meta row), and exits 1 naming the first file
that is not whole.

check_exports.py --runs MS FILE...: the same checks, then per run (a
bpmc_pid) one line "run PID FIRST_END_MS LAST_END_MS INTERVALS LOST",
and exit 1 if two intervals of a run are further apart than MS times one
plus the intervals_lost between them (a gap nothing accounts for).
"""
import csv
import datetime
import gzip
import io
import sys


def ms(t):
    d = datetime.datetime.strptime(t, "%Y-%m-%dT%H:%M:%S.%fZ")
    d = d.replace(tzinfo=datetime.timezone.utc)
    return round(d.timestamp() * 1000)


def check(path, out):
    raw = open(path, "rb").read()
    if path.lower().endswith(".gz"):
        raw = gzip.decompress(raw)  # every member, CRC and length checked
    text = raw.decode("utf-8")
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    header = next(reader)
    col = {name: i for i, name in enumerate(header)}
    meta, open_rows, ended = {}, 0, True
    for rec in reader:
        if len(rec) != len(header):
            raise ValueError(f"line {reader.line_num}: {len(rec)} fields")
        scope, event = rec[col["scope"]], rec[col["event"]]
        if scope in ("meta", "encoding"):
            if open_rows:
                raise ValueError(f"line {reader.line_num}: meta row inside an interval")
            meta[event] = rec[col["value"]]
            continue
        if "bpmc_pid" not in meta:
            raise ValueError("no meta rows before the first interval")
        open_rows += 1
        ended = False
        if scope == "self" and event == "intervals_lost":
            out.append((int(meta["bpmc_pid"]), ms(rec[col["time"]]),
                        int(rec[col["interval_ms"]]), int(rec[col["count"]]),
                        path))
            open_rows, ended = 0, True
    if not ended:
        raise ValueError("the last interval has no intervals_lost row: cut")
    if not out:
        raise ValueError("no whole interval")


def gaps(rows, nominal):
    """Per run, intervals must follow each other on the grid: a gap is
    allowed only where intervals_lost says that many were dropped."""
    bad = 0
    runs = {}
    for r in rows:
        runs.setdefault(r[0], []).append(r)
    for pid, rs in sorted(runs.items()):
        rs.sort(key=lambda r: r[1])
        lost = sum(r[3] for r in rs)
        for a, b in zip(rs, rs[1:]):
            # A late interval covers more than one tick (its own
            # interval_ms says so); lost ones are nominal ticks.
            allowed = max(b[2], nominal) + nominal * b[3] + nominal // 2
            if b[1] == a[1]:
                print(f"check_exports: run {pid}: interval ending {b[1]} twice",
                      file=sys.stderr)
                bad = 1
            elif b[1] - a[1] > allowed:
                print(f"check_exports: run {pid}: {b[1] - a[1]} ms between "
                      f"intervals ending {a[1]} and {b[1]} with {b[3]} lost",
                      file=sys.stderr)
                bad = 1
        print(f"run {pid} {rs[0][1]} {rs[-1][1]} {len(rs)} {lost}")
    return bad


def main():
    args = sys.argv[1:]
    nominal = None
    if args[:1] == ["--runs"]:
        nominal = int(args[1])
        args = args[2:]
    rows = []
    for path in args:
        mine = []
        try:
            check(path, mine)
        except Exception as e:  # any reason a consumer would choke
            print(f"check_exports: {path}: {e}", file=sys.stderr)
            return 1
        rows += mine
    if nominal is not None:
        return gaps(rows, nominal)
    for r in rows:
        print(*r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
