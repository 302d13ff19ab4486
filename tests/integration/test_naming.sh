#!/usr/bin/env bash
# bpmc encode and list: the golden encodings (libpfm 4.13), raw and sysfs
# syntax against this machine's sysfs, the bare-name fallback through a
# forced or derived table, unknown names with suggestions, list filters.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed (make test installs it)"

# field NAME KEY: KEY=value from the encode line of NAME.
field() {
	"$BPMC" encode "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# expect NAME TYPE CONFIG [KEY=VALUE]: golden encodings.
expect() {
	local name=$1 line
	line=$("$BPMC" encode "$name" 2>&1) || { fail "encode $name: $line"; return; }
	for kv in "type=$2" "config=$3" "${@:4}"; do
		[[ " $line " == *" $kv "* ]] || fail "encode $name: want $kv in: $line"
	done
}
Z=amd64_fam19h_zen4
expect PERF_COUNT_HW_CPU_CYCLES 0 0x0
expect $Z::RETIRED_INSTRUCTIONS 4 0xc0 exclude_kernel=0
expect $Z::RETIRED_SSE_AVX_FLOPS:ADD_SUB_FLOPS 4 0x103
expect $Z::RETIRED_INSTRUCTIONS:u 4 0xc0 exclude_kernel=1 exclude_user=0
expect $Z::RETIRED_INSTRUCTIONS:k 4 0xc0 exclude_kernel=0 exclude_user=1
expect cpu-clock 1 0x0
expect page-faults 1 0x2
expect cycles 0 0x0
expect perf::PERF_COUNT_SW_PAGE_FAULTS 1 0x2
expect PERF_COUNT_HW_CACHE_L1D:READ:MISS 3 0x10000
expect $Z::RETIRED_INSTRUCTIONS:period=5000 4 0xc0 period=5000
expect r1a2b 4 0x1a2b

# sysfs syntax, checked against what the kernel's sysfs holds here.
SYS=/sys/bus/event_source/devices
expect software/config=0x2/ "$(cat $SYS/software/type)" 0x2
n=0
for alias in $SYS/*/events/*; do
	case $alias in *.scale|*.unit|*.snapshot|*.per-pkg) continue ;; esac
	pmu=$(basename "$(dirname "$(dirname "$alias")")")
	ev=$(basename "$alias")
	type=$(cat "$SYS/$pmu/type")
	[ "$(field "$pmu/$ev/" type)" = "$type" ] || fail "$pmu/$ev/: type is not $type"
	# An alias of a single config-wide term must land in config as is.
	if [[ $(cat "$alias") =~ ^([a-z]+)=(0x[0-9a-f]+)$ ]] &&
		grep -qx 'config:0-63' "$SYS/$pmu/format/${BASH_REMATCH[1]}" 2>/dev/null; then
		want=$(printf '0x%x' "${BASH_REMATCH[2]}")
		[ "$(field "$pmu/$ev/" config)" = "$want" ] ||
			fail "$pmu/$ev/: config $(field "$pmu/$ev/" config), sysfs says $want"
	fi
	n=$((n + 1))
done
echo "  $n sysfs aliases encoded"
[ "$n" -gt 0 ] || echo "  (this kernel exposes no sysfs aliases)"
"$BPMC" encode msr/bogus/ 2>"$TMP/err" && fail "msr/bogus/ encoded"
grep -q "msr/bogus/" "$TMP/err" || fail "msr/bogus/ error does not name it"

# Bare names: through a forced table, through a derived one, or refused.
line=$("$BPMC" encode --pmu $Z RETIRED_INSTRUCTIONS) || fail "forced table: $line"
[[ $line == *"type=4 config=0xc0 "* ]] || fail "forced table: $line"
printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 97\nstepping\t: 2\n' > "$TMP/zen4"
line=$(BPMC_CPUINFO=$TMP/zen4 "$BPMC" encode RETIRED_INSTRUCTIONS 2>&1) ||
	fail "Zen 4 model 0x61 (which libpfm 4.13 misses): $line"
[[ $line == *"type=4 config=0xc0 "* ]] || fail "derived Zen 4 table: $line"
printf 'processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 26\nmodel\t\t: 2\n' > "$TMP/zen5"
BPMC_CPUINFO=$TMP/zen5 "$BPMC" encode RETIRED_INSTRUCTIONS cpu-clock RETIRED_UOPS >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] || fail "Zen 5 bare name: exit $rc, want 2"
grep -q "^cpu-clock: type=1" "$TMP/out" || fail "a bad name stopped the others"
[ "$(grep -c 'no event table for this CPU' "$TMP/err")" -eq 1 ] ||
	fail "the no-table warning is not said exactly once: $(cat "$TMP/err")"
grep -q "family 0x1a model 0x2.*--pmu $Z" "$TMP/err" || fail "warning does not name the CPU and $Z"
grep -q "unknown event 'RETIRED_INSTRUCTIONS'.*with --pmu $Z it is $Z::RETIRED_INSTRUCTIONS" "$TMP/err" ||
	fail "no hint for the bare name: $(cat "$TMP/err")"

# Unknown names: libpfm's reason, close matches, exit 2, in encode and record.
suggests() { # NAME EXPECTED ARGS...
	local name=$1 want=$2
	shift 2
	"$BPMC" "$@" "$name" >/dev/null 2>"$TMP/err"
	rc=$?
	[ "$rc" -eq 2 ] || fail "$* $name: exit $rc, want 2"
	grep -q "unknown event '$name': .*(did you mean .*$want" "$TMP/err" ||
		fail "$* $name: no suggestion $want: $(cat "$TMP/err")"
}
suggests RETIRED_INSTRUCTION RETIRED_INSTRUCTIONS encode --pmu $Z
suggests cpu-clok cpu-clock encode
suggests page-fault page-faults encode
suggests msr/tsx/ msr/tsc/ encode
suggests cpu-clok cpu-clock record -d 1 -o "$TMP/never.csv" -e
[ -e "$TMP/never.csv" ] && fail "a refused record left a file"
"$BPMC" encode --pmu zen4 cycles 2>"$TMP/err"
grep -q "unknown PMU table '--pmu zen4' (did you mean $Z" "$TMP/err" || fail "--pmu zen4: $(cat "$TMP/err")"

# msr/tsc/ counts but cannot sample: exact mode (the default) records it,
# sampling refuses it with that reason.
"$BPMC" record -e msr/tsc/ -d 1 -o "$TMP/tsc.csv" 2>"$TMP/err" ||
	fail "record -e msr/tsc/ (exact): $(cat "$TMP/err")"
csv_awk '$col("scope") == "system" && $col("event") == "msr/tsc/" && $col("count") > 0 { n++ } END { exit !n }' "$TMP/tsc.csv" ||
	fail "record -e msr/tsc/ counted nothing"
"$BPMC" record --mode sampling -e msr/tsc/ -d 1 -o "$TMP/tsc2.csv" 2>"$TMP/err"
[ $? -eq 2 ] && grep -q "'msr/tsc/'.*cannot sample" "$TMP/err" ||
	fail "record --mode sampling -e msr/tsc/: $(cat "$TMP/err")"

# encode --count on software events: non-zero counts, fully running.
"$BPMC" encode --count cpu-clock task-clock page-faults > "$TMP/count" || fail "encode --count failed"
sed 's/^/  /' "$TMP/count" | grep count=
for ev in cpu-clock task-clock page-faults; do
	grep -Eq "^  $ev: count=[1-9][0-9]* running=100.0%" "$TMP/count" || fail "$ev did not count"
done

# encode --count: a name that encodes but does not count is no success
# (exit 1), and a name with control characters is refused escaped.
"$BPMC" encode --count cycles > "$TMP/hw" 2>&1
rc=$?
if grep -q "not counted" "$TMP/hw"; then
	[ "$rc" -eq 1 ] || fail "encode --count cycles, not counted: exit $rc, want 1"
	echo "  cycles not counted: exit $rc: $(grep "not counted" "$TMP/hw" | sed 's/^ *//')"
fi
"$BPMC" encode $'cpu\e]0;x\acl\x7fk' > /dev/null 2>"$TMP/err"
rc=$?
[ "$rc" -eq 2 ] && grep -qF 'cpu\x1B]0;x\x07cl\x7Fk' "$TMP/err" &&
	! LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$TMP/err" ||
	fail "encode of a name with control characters: exit $rc: $(od -c "$TMP/err" | head -3)"
echo "  $(cat "$TMP/err")"
# As nobody: what kernel.perf_event_paranoid lets it count, said, and true.
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --inh-caps=-all)
if [ "$(id -u)" != 0 ] || ! id nobody >/dev/null 2>&1; then
	echo "  (not root, or no user nobody: the unprivileged encode is not tried)"
elif [ "$paranoid" -eq 2 ]; then
	"${NOBODY[@]}" "$BPMC" encode --count cpu-clock > "$TMP/nobody" 2>&1
	rc=$?
	echo "  as nobody, paranoid $paranoid: exit $rc: $(grep "cpu-clock:" "$TMP/nobody" | tail -1 | sed 's/^ *//')"
	[ "$rc" -eq 1 ] && grep -q "not counted: .*'cpu-clock:u' would" "$TMP/nobody" ||
		fail "as nobody, encode --count cpu-clock does not say what would count: exit $rc: $(cat "$TMP/nobody")"
	"${NOBODY[@]}" "$BPMC" encode --count cpu-clock:u > "$TMP/nobody" 2>&1 &&
		grep -Eq "^  cpu-clock:u: count=[1-9][0-9]{6,} running=100.0%" "$TMP/nobody" ||
		fail "as nobody, cpu-clock:u did not count: $(cat "$TMP/nobody")"
	echo "  as nobody: $(grep "count=" "$TMP/nobody" | sed 's/^ *//')"
else
	"${NOBODY[@]}" "$BPMC" encode --count cpu-clock > "$TMP/nobody" 2>&1
	echo "  as nobody, paranoid $paranoid: exit $?: $(tail -1 "$TMP/nobody" | sed 's/^ *//') (the cpu-clock:u suggestion is tested at 2)"
fi

# list: filters, globs, JSON that parses, --all.
"$BPMC" list tsc > "$TMP/list" 2>/dev/null
grep -q '^msr/tsc/' "$TMP/list" || fail "list tsc misses msr/tsc/"
grep -q '^perf::PERF_COUNT_SW_CPU_CLOCK' "$TMP/list" && fail "list tsc shows cpu-clock"
"$BPMC" list --pmu $Z --json 'RETIRED_SSE*' 2>/dev/null > "$TMP/json" || fail "list --json failed"
jq -e '.events | length > 0 and all(.name | test("RETIRED_SSE"; "i"))' "$TMP/json" >/dev/null ||
	fail "list --json 'RETIRED_SSE*' is not JSON of matching events"
jq -e '.events[] | select(.name == "'$Z'::RETIRED_SSE_AVX_FLOPS") | .umasks | map(.name) | index("ADD_SUB_FLOPS")' "$TMP/json" >/dev/null ||
	fail "list --json lacks the ADD_SUB_FLOPS unit mask"
jq -e '.pmus[] | select(.name == "'$Z'" and .counters == 6)' "$TMP/json" >/dev/null ||
	fail "list --json lacks $Z with its 6 counters"
"$BPMC" list --json 2>"$TMP/err" | jq -e '.events | map(.name) | index("msr/tsc/")' >/dev/null ||
	fail "list --json lacks the sysfs events"
[ "$("$BPMC" list --json 2>/dev/null | jq '[.pmus[] | select(.status == "inactive")] | length')" = 0 ] ||
	fail "inactive tables listed without --all"
[ "$("$BPMC" list --all --json 2>/dev/null | jq '[.pmus[] | select(.status == "inactive")] | length')" -gt 10 ] ||
	fail "--all does not list the inactive tables"
pass_or_fail
