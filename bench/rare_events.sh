#!/usr/bin/env bash
# Sampling against exact for dense and sparse keys, per software event:
# two bpmc records side by side (sampling, exact), one dense cgroup
# (burner 50 %, pagetouch 4000 pages every 0.2 s) and one sparse cgroup
# (burner 1 %, pagetouch 40 pages every 1 s). Prints, per event and
# cgroup, the samples per interval, the median and worst per-interval
# error and the whole-run error of sampling against exact, and the
# sampling cgroup rows' sum against the system row.
# bench/rare_events.sh [SECONDS] [extra record args...]
. "$(dirname "$0")/../tests/integration/lib.sh"
need_root
secs=${1:-8}
shift
ev=${EVENTS:-cpu-clock,task-clock,page-faults,context-switches,cpu-migrations}
start_record "$TMP/s.log" -e "$ev" "$@" -I 1000 -d $((secs + 2)) -o "$TMP/s.csv" || exit 1
s=$RECORD_PID
start_record "$TMP/e.log" --mode exact -e "$ev" -I 1000 -d $((secs + 2)) -o "$TMP/e.csv" || exit 1
e=$RECORD_PID
mk_cgroup D "bpmc-rare-$$/dense" || exit 1
mk_cgroup S "bpmc-rare-$$/sparse" || exit 1
spawn_in "$D" "$HELPERS/burner" 50 "$secs"
spawn_in "$S" "$HELPERS/burner" 1 "$secs"
spawn_in "$D" sh -c 'end=$(($(date +%s) + $2)); while [ $(date +%s) -lt $end ]; do "$1" 4000; sleep 0.2; done' sh "$HELPERS/pagetouch" "$secs"
spawn_in "$S" sh -c 'end=$(($(date +%s) + $2)); while [ $(date +%s) -lt $end ]; do "$1" 40; sleep 1; done' sh "$HELPERS/pagetouch" "$secs"
wait "$s" "$e"
for f in s e; do
	csv_awk -v m=$f -v d="${D#$CG2}" -v sp="${S#$CG2}" '
		$col("scope") == "cgroup" && ($col("cgroup") == d || $col("cgroup") == sp) {
			print m, $col("time"), $col("event"), ($col("cgroup") == d ? "dense" : "sparse"), $col("count"), $col("samples") }
		$col("scope") == "system" { print m, $col("time"), $col("event"), "system", $col("count"), $col("samples") }
		$col("scope") == "cgroup" { print m, $col("time"), $col("event"), "cgsum", $col("count"), 0 }' "$TMP/$f.csv"
done >"$TMP/all.txt"
cp "$TMP/all.txt" /tmp/rare-last.txt
python3 - "$TMP/all.txt" <<'PY'
import sys, collections, statistics
c = collections.defaultdict(float); sm = collections.defaultdict(float)
times = collections.defaultdict(list)
for line in open(sys.argv[1]):
    m, t, e, k, n, smp = line.split()
    if t not in times[m]:
        times[m].append(t)
    i = times[m].index(t)
    c[m, e, k, i] += float(n); sm[m, e, k, i] += float(smp)
evs = sorted({k[1] for k in c})
last = min(len(times['s']), len(times['e'])) - 1
# the workload starts in interval 0 or 1 and ends secs later: only the
# intervals it spans whole, on both records' grids (tens of ms apart)
lo, hi = 2, last - 1
print("%-17s %-7s %9s %9s %9s %9s %10s" % ("event", "key", "smp/intv", "med|err|", "worst", "whole", "cgsum/sys"))
for e in evs:
    for key in ("dense", "sparse"):
        errs = []; sc = ec = ss = 0
        for i in range(lo, hi):
            x, y = c['s', e, key, i], c['e', e, key, i]
            sc += x; ec += y; ss += sm['s', e, key, i]
            if y > 0:
                errs.append((x - y) / y * 100)
        med = statistics.median(abs(a) for a in errs) if errs else 0
        worst = max(errs, key=abs) if errs else 0
        sys_s = sum(c['s', e, 'system', i] for i in range(lo, hi))
        cg_s = sum(c['s', e, 'cgsum', i] for i in range(lo, hi))
        print("%-17s %-7s %9.1f %8.1f%% %+8.1f%% %+8.1f%% %9.1f%%" % (e, key, ss / max(hi - lo, 1), med, worst,
              100 * (sc - ec) / ec if ec else 0, 100 * cg_s / sys_s if sys_s else 0))
    print("%-17s %-7s %9.1f" % (e, "system", sum(sm['s', e, 'system', i] for i in range(lo, hi)) / max(hi - lo, 1)))
PY
grep -i warn "$TMP/s.log"
pass_or_fail
