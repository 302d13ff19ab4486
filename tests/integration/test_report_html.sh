#!/usr/bin/env bash
# bpmc report --html on a real recording, opened by a real browser: three
# cgroups burn 60, 35 and 15 % of a CPU under bpmc record (the third named
# with markup and quotes, c<i>&"'), and headless Chromium loads the page
# of bpmc report --by cgroup --html.
# Its DOM must hold one area (or line) per shown key in svg#series, one
# bar of non-zero width per key in svg#bars, and the three cgroups in
# table#keys, the hostile one as text, never as an element; its
# screenshot must show the chart painted in the colours the areas name.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed"
"$BPMC" report --help >/dev/null 2>&1 || skip "this bpmc has no report command"
if ! command -v chromium >/dev/null; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium \
		>/dev/null 2>&1 || skip "cannot install Debian's chromium"
fi

HOSTILE="c<i>&\"'"
mk_cgroup A "bpmc-test-$$/a" && mk_cgroup B "bpmc-test-$$/b" &&
	mk_cgroup C "bpmc-test-$$/$HOSTILE" || exit 1
# Only our subtree: the other cgroups of this host must not crowd ours
# out of the report's top keys.
start_record "$TMP/log" -e cpu-clock,page-faults --by cgroup,process -I 500 -d 5 \
	-G "/bpmc-test-$$" -o "$TMP/out.csv" || exit 1
spawn_in "$A" "$HELPERS/burner" 60 4
pa=$SPAWNED
spawn_in "$B" "$HELPERS/burner" 35 4
pb=$SPAWNED
spawn_in "$C" "$HELPERS/burner" 15 4
wait "$pa" "$pb" "$SPAWNED" || fail "a burner failed"
wait "$RECORD_PID" || fail "bpmc record exited $?: $(cat "$TMP/log")"

start=$(date +%s%N)
"$BPMC" report --by cgroup --html "$TMP/out.html" "$TMP/out.csv" >"$TMP/report.out" 2>"$TMP/report.err" ||
	{ fail "bpmc report failed: $(cat "$TMP/report.err")"; pass_or_fail; }
ms=$((($(date +%s%N) - start) / 1000000))
echo "  bpmc report --html: $(stat -c %s "$TMP/out.html") bytes from $(stat -c %s "$TMP/out.csv") bytes of CSV in $ms ms"
grep -q 'http' "$TMP/out.html" && fail "the page names http: $(grep -o '.\{20\}http.\{20\}' "$TMP/out.html" | head -1)"
grep -qi '<script' "$TMP/out.html" && fail "the page holds a <script"
# --top 2 shows two keys, in both charts; --bucket sets the step.
"$BPMC" report --by cgroup --top 2 --bucket 2s --html "$TMP/top.html" "$TMP/out.csv" >/dev/null 2>"$TMP/report.err" ||
	fail "bpmc report --top 2 --bucket 2s failed: $(cat "$TMP/report.err")"
areas=$(grep -o '<path class="series-area"' "$TMP/top.html" | wc -l)
bars=$(grep -o '<rect class="bar"' "$TMP/top.html" | wc -l)
[ "$areas" = 2 ] && [ "$bars" = 2 ] && grep -q 'one step per bucket of 2.000 s' "$TMP/top.html" ||
	fail "--top 2 --bucket 2s: $areas areas, $bars bars, $(grep -o 'one step per bucket of [^;]*' "$TMP/top.html")"

# Chromium as root wants --no-sandbox; a profile of its own under $TMP.
chrome() {
	timeout -k 5 90 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$TMP/chrome" \
		--window-size=1200,1600 "$@" "file://$TMP/out.html" 2>>"$TMP/chrome.log"
}
chrome --dump-dom >"$TMP/dom.html" || fail "chromium --dump-dom failed: $(tail -3 "$TMP/chrome.log")"
(cd "$TMP" && chrome --screenshot="$TMP/out.png" >/dev/null) ||
	fail "chromium --screenshot failed: $(tail -3 "$TMP/chrome.log")"
[ -s "$TMP/dom.html" ] && [ -s "$TMP/out.png" ] || { fail "no DOM or no screenshot"; pass_or_fail; }

python3 - "$TMP/dom.html" "$TMP/out.png" "/bpmc-test-$$/a" "/bpmc-test-$$/b" \
	"/bpmc-test-$$/$HOSTILE" <<'PY' || fail "the page as Chromium rendered it (above)"
import collections, html.parser, struct, sys, zlib

class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.svg = self.table = self.td = None
        self.tbody = False
        self.series, self.bars, self.cells, self.rows = [], [], [], 0
        self.tags = collections.Counter()

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] += 1
        if tag == 'svg':
            self.svg = a.get('id')
        elif tag == 'table':
            self.table = a.get('id')
        if self.svg == 'series' and tag == 'path' and a.get('class') in ('series-area', 'series-line'):
            self.series.append(a)
        if self.svg == 'bars' and tag == 'rect' and a.get('class') == 'bar':
            self.bars.append(a)
        if self.table == 'keys':
            if tag == 'tbody':
                self.tbody = True
            elif tag == 'tr' and self.tbody:
                self.rows += 1
            elif tag == 'td':
                self.td = ''

    def handle_endtag(self, tag):
        if tag == 'svg':
            self.svg = None
        elif tag == 'table':
            self.table, self.tbody = None, False
        elif tag == 'td' and self.td is not None:
            self.cells.append(self.td)
            self.td = None

    def handle_data(self, data):
        if self.td is not None:
            self.td += data

def png_rows(path):
    """The screenshot's rows of (r, g, b), from zlib and the PNG filters."""
    data = open(path, 'rb').read()
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat = 8, []
    while pos < len(data):
        n, typ = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        pos += 12 + n
        if typ == b'IHDR':
            w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
        elif typ == b'IDAT':
            idat.append(body)
    assert depth == 8 and ctype in (2, 6) and not interlace, 'an unexpected PNG format'
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev = zlib.decompress(b''.join(idat)), w * bpp, bytearray(w * bpp)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield [tuple(line[x * bpp:x * bpp + 3]) for x in range(w)]
        prev = line

dom = Dom()
dom.feed(open(sys.argv[1], encoding='utf-8').read())
bad = []
n = len(dom.series)
print(f'  DOM: {n} series paths, {len(dom.bars)} bars, {dom.rows} rows in table#keys')
if n < 3 or n != len(dom.bars) or n != dom.rows:
    bad.append('not one path and one bar per key')
if any(not p.get('d') for p in dom.series):
    bad.append('a series path draws nothing')
if any(float(b.get('width', 0)) <= 0 for b in dom.bars):
    bad.append('a bar of no width: ' + ', '.join(b.get('width', '?') for b in dom.bars))
for cg in sys.argv[3:]:
    if cg not in dom.cells:
        bad.append(f'table#keys does not list {cg}')
if dom.tags['script'] or dom.tags['i']:
    bad.append('a name became markup')

# The series chart's x axis: the first row with a long neutral dark line
# across the plot (grid lines are lighter); the plot is the 296 CSS px
# above it, from x = 24 + 76 to 24 + 920 (body margin, then the svg's).
fills = {tuple(int(p['fill'][i:i + 2], 16) for i in (1, 3, 5)) for p in dom.series if p.get('fill', '#')[0] == '#'}
fills |= {tuple(int(p['stroke'][i:i + 2], 16) for i in (1, 3, 5)) for p in dom.series if p.get('stroke')}
rows, axis = [], None
for y, row in enumerate(png_rows(sys.argv[2])):
    rows.append(row)
    if sum(1 for r, g, b in row[90:990] if r == g == b and r < 0xd0) >= 800:
        axis = y
        break
if axis is None or axis < 296:
    bad.append('no x axis of the series chart in the screenshot')
else:
    seen, total = collections.Counter(), 296 * 844
    for row in rows[axis - 296:axis]:
        for px in row[100:944]:
            if px in fills:
                seen[px] += 1
    share = 100 * sum(seen.values()) / total
    print(f'  screenshot: x axis at y={axis}, {share:.1f} % of the plot in the areas\' colours: ' +
          ', '.join(f'#{r:02x}{g:02x}{b:02x} {c}' for (r, g, b), c in seen.most_common()))
    if share < 15 or sum(1 for c in seen.values() if c >= total / 100) < 3:
        bad.append('the chart is not painted in three of its colours')
for b in bad:
    print('  ' + b)
sys.exit(1 if bad else 0)
PY
pass_or_fail
