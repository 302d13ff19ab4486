#!/usr/bin/env bash
# encode --count on hardware events: they must count the built-in workload
# where there is a PMU; where there is none this is a SKIP, with the reason.
. "$(dirname "$0")/lib.sh"

"$BPMC" encode --count cycles instructions > "$TMP/out" 2>&1
rc=$?
if grep -q "not counted: no hardware PMU" "$TMP/out"; then
	skip "hardware counts: no hardware PMU on this host ($(grep -m1 'not counted' "$TMP/out" | sed 's/^ *//'))"
fi
[ "$rc" -eq 0 ] || fail "encode --count cycles instructions: exit $rc: $(cat "$TMP/out")"
sed 's/^/  /' "$TMP/out"
for ev in cycles instructions; do
	grep -Eq "^  $ev: count=[1-9][0-9]{6,} running=" "$TMP/out" ||
		fail "$ev counted less than a million over 20M iterations"
done
pass_or_fail
