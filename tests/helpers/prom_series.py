#!/usr/bin/env python3
"""prom_series.py [FILE]: reads a Prometheus text (0.0.4) or OpenMetrics
exposition and prints one line per sample, in one canonical form that
two renderings of the same series share whatever their label order:

    name<TAB>label=value<TAB>...<TAB>value

labels sorted by name, each value unescaped (the real bytes) and then
written with Python's escapes (repr without quotes), so that a line never
holds a raw tab or newline; labels with an empty value are left out, as
Prometheus reads them as absent (node_exporter gives every series of a
family the same label names, empty where a series has none). Comment lines are skipped. A line that is not
a valid sample exits 2 with the line number: a strict reader, on purpose.
"""
import re
import sys

NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*")
LABEL = re.compile(r"[a-zA-Z_][a-zA-Z0-9_]*")


def fail(n, line, why):
    print(f"prom_series.py: line {n}: {why}: {line!r}", file=sys.stderr)
    sys.exit(2)


def parse(n, line):
    m = NAME.match(line)
    if not m:
        fail(n, line, "no metric name")
    name, i, labels = m.group(0), m.end(), {}
    if i < len(line) and line[i] == "{":
        i += 1
        while line[i] != "}":
            m = LABEL.match(line, i)
            if not m or line[m.end():m.end() + 2] != '="':
                fail(n, line, "bad label")
            key, i, val = m.group(0), m.end() + 2, bytearray()
            while line[i] != '"':
                c = line[i]
                if c == "\\":
                    e = line[i + 1]
                    if e not in 'n"\\':
                        fail(n, line, "bad escape")
                    val += b"\n" if e == "n" else e.encode()
                    i += 2
                else:
                    val += c.encode("utf-8", "surrogateescape")
                    i += 1
            if key in labels:
                fail(n, line, "label twice")
            if val:
                labels[key] = bytes(val)
            i += 1
            if line[i] == ",":
                i += 1
        i += 1
    rest = line[i:].split()
    if len(rest) not in (1, 2):
        fail(n, line, "no value")
    float(rest[0])
    return name, labels, rest[0]


def main():
    f = open(sys.argv[1], "rb") if len(sys.argv) > 1 else sys.stdin.buffer
    text = f.read().decode("utf-8")  # strict: invalid UTF-8 fails here
    seen = set()
    for n, line in enumerate(text.split("\n"), 1):
        if not line or line.startswith("#"):
            continue
        name, labels, value = parse(n, line)
        key = (name, tuple(sorted(labels.items())))
        if key in seen:
            fail(n, line, "duplicate series")
        seen.add(key)
        out = [name] + [f"{k}={repr(v)[2:-1]}" for k, v in key[1]] + [value]
        print("\t".join(out))


main()
