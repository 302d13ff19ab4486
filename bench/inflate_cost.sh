#!/usr/bin/env bash
# Case 8b: which inflater the report should read .gz with. One host's
# export (bench/report_gen, as case 8), gzip -1, inflated in memory by
# zlib, ISA-L and libdeflate, cut mid-stream, and written again as gzip
# members of 1, 4 and 16 MiB with their size in an FEXTRA subfield,
# inflated on 1 and 2 threads (bench/inflate_cost.c says how). Every
# members file must pass gzip -t and give back the plain text to zcat.
. "$(dirname "$0")/lib.sh"
GEN="$ROOT/build/bench/report_gen"
F="$TMP/host.csv"

[ -x "$GEN" ] || { echo "inflate_cost: $GEN is not built (make bench builds it)" >&2; exit 1; }
"$GEN" "$F" 2>"$TMP/gen.err" || { cat "$TMP/gen.err" >&2; exit 1; }
gzip -1 -k "$F" || exit 1
"$ROOT/build/bench/inflate_cost" -w "$TMP" "$F.gz" "$F" || exit 1
for m in 1 4 16; do
	g="$TMP/members-${m}m.gz"
	gzip -t "$g" 2>/dev/null && t=ok || t=fails
	zcat "$g" | cmp -s - "$F" && c=equal || c=differs
	echo "inflate_members_${m}m_gzip_t $t"
	echo "inflate_members_${m}m_zcat $c"
	rm -f "$g"
done
