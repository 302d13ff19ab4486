# awk -f bench/scaling_svg.awk [-v w=ring|fork] RESULTS > CHART.svg
# Case 11's chart: each configuration's slowdown of workload w (the ring
# unless told) against the number of cgroups, log-x, medians joined by
# lines, each N's min-max as a bar. RESULTS: bench/scaling_cost.sh's
# "key value" lines. The axis (ticks at 1, 2 or 5 times a power of ten),
# the palette and the styles are those of `bpmc report --html`'s charts
# (user/report/svg.c, html.c, html_text.c). POSIX awk: mawk runs it.
function floor_(x) { return x == int(x) || x >= 0 ? int(x) : int(x) - 1 }
function ceil_(x) { return -floor_(-x) }
function log10_(x) { return log(x) / log(10) }
# axis_init of user/report/svg.c, without the suffixes (percentages).
function axis_init(lo, hi, want,   raw, mag, f) {
	if (!(hi > lo)) hi = lo + 1
	raw = (hi - lo) / want
	mag = 10 ^ floor_(log10_(raw))
	f = raw / mag
	STEP = (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag
	LO = floor_(lo / STEP) * STEP
	HI = ceil_(hi / STEP) * STEP
	DEC = STEP >= 1 ? 0 : ceil_(-log10_(STEP) - 1e-9)
}
function fy(v) { return Y1 - (v - LO) / (HI - LO) * (Y1 - Y0) }
function fx(k) { return NN > 1 ? X0 + 20 + (log10_(NV[k]) - log10_(NV[1])) / (log10_(NV[NN]) - log10_(NV[1])) * (X1 - X0 - 40) : (X0 + X1) / 2 }
function clip(v) { return CLIP && v > CAP ? CAP : v }
function esc(s) { gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s); return s }
BEGIN {
	if (w == "") w = "ring"
	split("#0072b2 #e69f00 #009e73 #cc79a7 #56b4e9 #d55e00 #f0e442 #332288 #999933 #882255", PAL, " ")
	LABEL["none"] = "none (bare against bare)"
	LABEL["defaults"] = "bpmc record (defaults: exact)"
	LABEL["sampling"] = "bpmc record --mode sampling"
	LABEL["perf"] = "perf stat --for-each-cgroup"
	LABEL["bperf"] = "bperf (perf stat --bpf-counters)"
	LABEL["bpftrace"] = "bpftrace @[cgroup] = count()"
	# Colours fixed per configuration, so that charts compare.
	COL["defaults"] = PAL[1]; COL["sampling"] = PAL[5]; COL["perf"] = PAL[2]
	COL["bperf"] = PAL[6]; COL["bpftrace"] = PAL[3]; COL["none"] = "#999999"
	W = 800; H = 390; X0 = 64; X1 = 500; Y0 = 44; Y1 = 330
}
{ key = $1; $1 = ""; sub(/^ /, ""); V[key] = $0 }
END {
	NN = split(V["scaling_ns"], NV, " ")
	NC = split(V["scaling_configs"], CF, " ")
	# Each configuration's highest median; the axis covers every median
	# and range, but where the highest configuration is above three
	# times the next, the axis stops above the next: that one's medians
	# above are drawn at the top, a triangle with their value, and ranges
	# end there. Else the others would be a flat line at 0.
	lo = 0; hi = 0
	for (c = 1; c <= NC; c++) {
		top[c] = 0
		for (k = 1; k <= NN; k++) {
			p = "scaling_" NV[k] "_" CF[c] "_" w
			if ((p "_pct") in V) {
				v = V[p "_pct"] + 0; if (v < lo) lo = v; if (v > top[c]) top[c] = v; if (v > hi) hi = v
				if (split(V[p "_range"], r, " to ") == 2) {
					if (r[1] + 0 < lo) lo = r[1] + 0; if (r[2] + 0 > hi) hi = r[2] + 0
				}
			}
		}
	}
	first = 0; second = 0
	for (c = 1; c <= NC; c++)
		if (top[c] > first) { second = first; first = top[c] } else if (top[c] > second) second = top[c]
	CLIP = 0
	if (first > 3 * second && first - second > 20) { hi = second * 1.3 + 2; CLIP = 1 }
	else if (hi > 3 * first && hi - first > 20) { hi = first * 1.3 + 2; CLIP = 1 }
	axis_init(lo, hi, 6)
	if (CLIP) CAP = HI
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\">\n", W, H, W, H
	print "<style>text{font:11px system-ui,sans-serif;fill:#333}.axis-title{font-size:12px}.title{font-size:13px;font-weight:600}" \
		".grid{stroke:#e4e4e4}.axis{stroke:#333}.series-line{stroke-width:2;fill:none}.range{stroke-width:1.5}</style>"
	printf "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n", W, H
	printf "<text x=\"%d\" y=\"18\" class=\"title\">%s</text>\n", X0, esc("Slowdown of the " (w == "ring" ? "token ring (" V["scaling_hops"] " hops)" : "fork/exec loop (" V["scaling_forks"] " × sh -c)") " against the number of cgroups")
	for (t = LO; t <= HI + STEP / 2; t += STEP) {
		y = fy(t)
		printf "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", X0, X1, y, y
		printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", X0 - 6, y + 4, (t * t < STEP * STEP / 4 ? "0" : sprintf("%+." DEC "f", t))
	}
	printf "<line class=\"axis\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>\n", X0, X1, fy(LO > 0 ? LO : (HI < 0 ? HI : 0)), fy(LO > 0 ? LO : (HI < 0 ? HI : 0))
	for (k = 1; k <= NN; k++) {
		printf "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", fx(k), fx(k), Y1, Y1 + 5
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n", fx(k), Y1 + 18, NV[k]
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" class=\"axis-title\">cgroups the work is spread over (log scale)</text>\n", (X0 + X1) / 2, H - 10
	printf "<text transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\" class=\"axis-title\">slowdown, %% (median of pairs, min-max)</text>\n", (Y0 + Y1) / 2
	ly = Y0 + 6
	for (c = 1; c <= NC; c++) {
		cf = CF[c]; col = (cf in COL) ? COL[cf] : PAL[c]
		dash = cf == "none" ? " stroke-dasharray=\"5 3\"" : ""
		d = ""; n = 0
		for (k = 1; k <= NN; k++) {
			p = "scaling_" NV[k] "_" cf "_" w
			if (!((p "_pct") in V)) continue
			v = V[p "_pct"] + 0
			tip = sprintf("<title>%s, %d cgroups: %+.2f %% (%s)</title>", esc(LABEL[cf]), NV[k], v, V[p "_range"])
			if (split(V[p "_range"], r, " to ") == 2)
				printf "<line class=\"range\" stroke=\"%s\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>\n", col, fx(k), fx(k), fy(clip(r[1] + 0)), fy(clip(r[2] + 0))
			if (CLIP && v > CAP) {
				d = d (n++ ? "L" : "M") sprintf("%.1f %.1f", fx(k), fy(CAP))
				printf "<path fill=\"%s\" d=\"M%.1f %.1fl-5 8h10z\">%s</path>", col, fx(k), fy(CAP) - 2, tip
				printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"%s\">%+.0f %%</text>\n", fx(k), fy(CAP) - 6, col, v
				continue
			}
			d = d (n++ ? "L" : "M") sprintf("%.1f %.1f", fx(k), fy(v))
			printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\">%s</circle>\n", fx(k), fy(v), col, tip
		}
		if (!n) continue
		printf "<path class=\"series-line\" stroke=\"%s\"%s d=\"%s\"><title>%s</title></path>\n", col, dash, d, esc(LABEL[cf] != "" ? LABEL[cf] : cf)
		printf "<line stroke=\"%s\" stroke-width=\"2\"%s x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", col, dash, X1 + 16, X1 + 36, ly, ly
		printf "<text x=\"%d\" y=\"%d\">%s</text>\n", X1 + 42, ly + 4, esc(LABEL[cf] != "" ? LABEL[cf] : cf)
		ly += 18
	}
	if (CLIP) {
		printf "<text x=\"%d\" y=\"%d\" fill=\"#777\">%s</text>\n", X1 + 16, ly + 4, esc(sprintf("axis cut at %+g %%: a triangle is a median", CAP))
		printf "<text x=\"%d\" y=\"%d\" fill=\"#777\">%s</text>\n", X1 + 16, ly + 18, esc("above it, with its value; ranges end there")
		ly += 32
	}
	if ("scaling_bperf_skipped" in V)
		printf "<text x=\"%d\" y=\"%d\" fill=\"#777\">%s</text>\n", X1 + 16, ly + 4, esc("bperf: not measured")
	print "</svg>"
}
