#!/usr/bin/env bash
# Honest fallbacks of bpmc's names (issue 17, items 3 and 4):
# - the libpfm table a CPU gets is the one libpfm's newest detection code
#   gives it (tests/data/libpfm_cpu_tables.tsv), through bpmc encode and a
#   /proc/cpuinfo fixture ($BPMC_CPUINFO) for one CPU of every row;
# - an event of a libpfm uncore or RAPL table whose kernel PMU this host
#   lacks (checked in sysfs first) is refused naming the event and the
#   PMU, never encoded as a core event; where the PMU is there, it
#   encodes with that PMU's type;
# - "did you mean" never offers back what was typed.
. "$(dirname "$0")/lib.sh"
command -v jq >/dev/null || skip "jq is not installed (make test installs it)"
DATA=$ROOT/tests/data/libpfm_cpu_tables.tsv
SYS=/sys/bus/event_source/devices

# --- Table choice: one CPU per row, its expected table by first match.
rows=()
while read -r vendor family lo hi slo shi table; do
	[[ -z $vendor || $vendor == \#* ]] && continue
	rows+=("$vendor $((family)) $((lo)) $((hi)) $slo $shi $table")
done < "$DATA"
# expected VENDOR FAMILY MODEL STEPPING: the table of the first row that matches.
expected() {
	local row v f lo hi slo shi t
	for row in "${rows[@]}"; do
		read -r v f lo hi slo shi t <<< "$row"
		if [ "$v" = "$1" ] && [ "$f" = "$2" ] && [ "$3" -ge "$lo" ] && [ "$3" -le "$hi" ] &&
			[ "$4" -ge "$slo" ] && [ "$4" -le "$shi" ]; then
			echo "$t"
			return
		fi
	done
}
# encodable_event TABLE: one of its events that encodes as TABLE::EVENT,
# those without unit masks first.
encodable_event() {
	local c
	for c in $("$BPMC" list --pmu "$1" --json 2>/dev/null | jq -r --arg t "$1::" \
		'[.events[] | select(.name | startswith($t))] | sort_by(.umasks | length) | .[0:20][].name'); do
		"$BPMC" encode "$c" >/dev/null 2>&1 && { echo "$c"; return; }
	done
}
checked=0
declare -A first_event=()
for row in "${rows[@]}"; do
	# The row's last model and stepping: its own unless an earlier row
	# carves them out, which expected() accounts for.
	read -r vendor family _ model _ stepping _ <<< "$row"
	want=$(expected "$vendor" "$family" "$model" "$stepping")
	[ -n "${first_event[$want]:-}" ] || first_event[$want]=$(encodable_event "$want")
	ev=${first_event[$want]#*::}
	[ -n "$ev" ] || { fail "no event of table $want encodes"; continue; }
	printf 'processor\t: 0\nvendor_id\t: %s\ncpu family\t: %d\nmodel\t\t: %d\nstepping\t: %d\n' \
		"$vendor" "$family" "$model" "$stepping" > "$TMP/cpuinfo"
	cpu="$vendor family $family model $model stepping $stepping"
	line=$(BPMC_CPUINFO=$TMP/cpuinfo "$BPMC" encode "$ev" 2>&1) ||
		{ fail "$cpu: $ev: $line"; continue; }
	[[ $line == *" fstr=$want::"* ]] || fail "$cpu: want table $want, got: $line"
	checked=$((checked + 1))
done
echo "  $checked CPUs (one per row of $(basename "$DATA")) encoded a bare name through the expected table, ${#first_event[@]} tables"
[ "$checked" -ge 50 ] || fail "only $checked CPUs checked"

# --- Kernel PMUs: refused when sysfs lacks them, their type when not.
# NAME KERNEL_PMU: the event, and the PMU libpfm's table counts through.
refused=0 encoded=0
while read -r name kpmu; do
	"$BPMC" encode cpu-clock "$name" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	grep -q '^cpu-clock: type=1 ' "$TMP/out" || fail "$name stopped cpu-clock from encoding"
	if [ -e "$SYS/$kpmu/type" ]; then
		type=$(cat "$SYS/$kpmu/type")
		[ "$rc" = 0 ] && grep -q "^$name: type=$type " "$TMP/out" ||
			fail "$name: this host has $kpmu (type $type): $(cat "$TMP/out" "$TMP/err")"
		encoded=$((encoded + 1))
		continue
	fi
	[ "$rc" = 2 ] || fail "$name without $kpmu: exit $rc, want 2"
	grep -q "^$name:" "$TMP/out" && fail "$name encoded without $kpmu: $(cat "$TMP/out")"
	[ "$(wc -l < "$TMP/err")" = 1 ] || fail "$name: not one line: $(cat "$TMP/err")"
	grep -q "event '$name' needs the kernel PMU '$kpmu', which this host lacks" "$TMP/err" ||
		fail "$name: the refusal does not name it and $kpmu: $(cat "$TMP/err")"
	grep -q "did you mean" "$TMP/err" && fail "$name: a suggestion for a name spelt right: $(cat "$TMP/err")"
	refused=$((refused + 1))
done <<'LIST'
rapl::RAPL_ENERGY_PKG power
rapl::RAPL_ENERGY_CORES power
amd64_rapl::RAPL_ENERGY_PKG power
amd64_rapl::RAPL_ENERGY_PKG:u power
RAPL_ENERGY_PKG power
snbep_unc_cbo0::UNC_C_CLOCKTICKS uncore_cbox_0
skx_unc_cha0::UNC_C_CLOCKTICKS uncore_cha_0
ivbep_unc_imc1::UNC_M_CLOCKTICKS uncore_imc_1
amd64_fam19h_zen3_l3::UNC_L3_REQUESTS amd_l3
amd64_fam15h_nb::DRAM_ACCESSES amd_nb
LIST
echo "  $refused events refused for a missing kernel PMU, $encoded encoded through one present here"
[ $((refused + encoded)) = 10 ] || fail "not every case was checked"

# record refuses it the same way, and writes no file.
"$BPMC" record -e cpu-clock,rapl::RAPL_ENERGY_PKG -d 1 -o "$TMP/rapl.csv" 2>"$TMP/err"
rc=$?
if [ ! -e "$SYS/power/type" ]; then
	[ "$rc" = 2 ] || fail "record -e rapl::RAPL_ENERGY_PKG: exit $rc, want 2"
	grep -q "kernel PMU 'power'" "$TMP/err" || fail "record: $(cat "$TMP/err")"
	[ -e "$TMP/rapl.csv" ] && fail "a refused record left a file"
fi

# --- Suggestions: never the name as typed (without its modifiers).
suggested=0
for name in snbep_unc_cbo0::UNC_C_CLOCKTIKS amd64_fam19h_zen3::RETIRED_INSTRUCTIONS:bogus \
	amd64_fam19h_zen4::RETIRED_INSTRUCTION cpu-clok cpu-clock:bogus page-fault msr/tsx/ \
	amd64_rapl::RAPL_ENERGY_PKG:bogus; do
	"$BPMC" encode "$name" >/dev/null 2>"$TMP/err" && { fail "$name encoded"; continue; }
	typed=$name
	[[ $name == */* ]] || typed=$(sed -E 's/^(([^:]*::)?[^:]*).*/\1/' <<< "$name")
	hint=$(sed -n 's/.*(did you mean \(.*\)?)$/\1/p' "$TMP/err")
	[ -n "$hint" ] && suggested=$((suggested + 1))
	echo "  $name -> ${hint:-no suggestion}"
	for s in $(sed 's/, / /g; s/ or / /g' <<< "$hint"); do
		[ "${s,,}" = "${typed,,}" ] && fail "$name: suggests itself back: $(cat "$TMP/err")"
	done
done
[ "$suggested" -ge 4 ] || fail "only $suggested of the misspellings got a suggestion"
pass_or_fail
