#!/usr/bin/env bash
# --max-keys costs what the help says, and no more than the machine can
# give (issue 18): the help's bytes a key against the kernel's memlock of
# the three hashes (the counts of each generation, key_entry) and the
# store's two mapped arrays; beyond 1048576 keys the hashes are not
# preallocated (the preallocation stalled a CPU in the kernel for a
# minute at 16M keys); in a memory cgroup too small for the maps, the
# value is refused with its cost. Nothing here asks the kernel for more
# than 1 GiB outside a 256 MiB cgroup, so the test cannot stall the
# host if the defect is back (4M keys preallocated take 2.5 s here).
. "$(dirname "$0")/lib.sh"
need_root

# The help's cost: N x (476 + 160 x EVENTS) bytes for a power of two,
# of which 32 + 32 x EVENTS are user space's copy of an interval, 44 its
# keeping of the store's entries (maps/entries.h), 48 the rows stage's
# sort, and 3 x 8 the allocator's nodes of hashes that are not
# preallocated.
help=$("$BPMC" record --help 2>&1 | tr -s ' \n' ' ')
[[ $help == *"N x (476 + 160 x EVENTS) bytes"* ]] || fail "the help does not state the cost of --max-keys: $help"

# hashes PID KEYS: "FLAGS MEMLOCK" of each BPF hash the process holds,
# then "array MEMLOCK" of each mapped (BPF_F_MMAPABLE) array of KEYS
# entries: the store's, not the global data's.
hashes() {
	local f
	for f in /proc/"$1"/fdinfo/*; do
		awk -v n="$2" '/^map_type:/ { t = $2 } /^map_flags:/ { fl = $2 } /^memlock:/ { m = $2 }
			/^max_entries:/ { e = $2 }
			END { if (t == 1) print fl, m; if (t == 2 && fl == "0x400" && e == n) print "array", m }' "$f" 2>/dev/null
	done
}

# 65536 keys of one event, preallocated: the kernel's memlock of both
# hashes is the help's figure less the copy (32 + 32) and the allocator's two
# nodes (2 x 8) that preallocation does without.
start_record "$TMP/log.64k" -e cpu-clock --max-keys 65536 -d 2 -o "$TMP/64k.csv" || exit 1
hashes "$RECORD_PID" 65536 >"$TMP/maps.64k"
wait "$RECORD_PID" || fail "bpmc --max-keys 65536 exited $?: $(cat "$TMP/log.64k")"
read -r flags memlock < <(awk '$1 != "array" { f = f $1 } { m += $2 } END { print f, m }' "$TMP/maps.64k")
want=$((65536 * (476 + 160 - (32 + 32) - 60 - 48 - 3 * 8)))
echo "  --max-keys 65536: 3 hashes and 2 arrays, hash flags $flags, memlock $memlock bytes; the help says $want"
[ "$(grep -vc array "$TMP/maps.64k")" = 3 ] && [ "$(grep -c array "$TMP/maps.64k")" = 2 ] ||
	fail "want 3 hashes and 2 mapped arrays, found: $(cat "$TMP/maps.64k")"
[ "$flags" = 0x00x00x0 ] || fail "65536 keys are not preallocated: flags $flags"
within "$memlock" "$want" 1 || fail "memlock $memlock is not within 1 % of the help's $want"

# 4M keys: allocated as keys come, so the empty hashes hold only their
# buckets (16 bytes a key), not the 1 GiB that preallocation took. In
# sampling mode: perf_event programs are the ones that once could not
# use such a hash. A burner's cgroup still reads its cpu.stat.
mk_cgroup CG "bpmc-test-$$/lazy" || exit 1
t0=$(date +%s%N)
start_record "$TMP/log.4m" -e cpu-clock -F 997 --max-keys 4194304 -I 500 -d 4 -o "$TMP/4m.csv" || exit 1
t1=$(date +%s%N)
hashes "$RECORD_PID" 4194304 >"$TMP/maps.4m"
before=$(usage_usec "$CG")
lost_mark
spawn_in "$CG" "$HELPERS/burner" 50 2
wait "$SPAWNED"
used=$((($(usage_usec "$CG") - before) * 1000))
wait "$RECORD_PID" || fail "bpmc --max-keys 4194304 exited $?: $(cat "$TMP/log.4m")"
read -r flags memlock < <(awk '$1 != "array" { f = f $1; m += $2 } END { print f, m }' "$TMP/maps.4m")
echo "  --max-keys 4194304: hash flags $flags, their memlock $memlock bytes (full: $((4194304 * (476 + 160))) with the arrays and user space's); recording after $(((t1 - t0) / 1000000)) ms"
[ "$flags" = 0x10x10x1 ] || fail "4194304 keys are preallocated: flags $flags"
[ "$memlock" -le $((3 * 4194304 * 17)) ] || fail "4194304 keys take $memlock bytes of hashes before any key came"
check_usage "$TMP/4m.csv" "$CG" "$used" 5

# A kernel whose perf_event programs need preallocated hashes (before
# 6.1): said once, and preallocated (one key past the threshold: 0.8 s
# in the kernel here).
BPMC_TEST_PROBE_FAIL=no_prealloc start_record "$TMP/log.old" -e cpu-clock -F 997 --max-keys 1048577 -d 1 \
	-o "$TMP/old.csv" || exit 1
hashes "$RECORD_PID" 1048577 >"$TMP/maps.old"
wait "$RECORD_PID" || fail "bpmc on a kernel without it exited $?: $(cat "$TMP/log.old")"
n=$(grep -c "lets no perf_event program use a hash that is not preallocated (Linux 6.1 does)" "$TMP/log.old")
flags=$(awk '$1 != "array" { f = f $1 } END { print f }' "$TMP/maps.old")
echo "  without BPF_F_NO_PREALLOC for perf_event programs: said $n time(s), flags $flags"
[ "$n" = 1 ] || fail "the fallback was said $n times, not once"
[ "$flags" = 0x00x00x0 ] || fail "the fallback did not preallocate: flags $flags"

# A memory cgroup of 256 MiB (room for bpmc built with ASan too): 4M
# keys (1.3 GiB full) are refused with their cost before anything is
# opened; 65536 keys (21 MiB) record.
mk_memcg MEM $((256 << 20)) || skip "cannot make a memory cgroup with a limit here"
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$MEM" \
	"$BPMC" record -e cpu-clock --max-keys 4194304 -d 1 -o "$TMP/4m-in.csv" 2>"$TMP/log.4m-in"
rc=$?
sed 's/^/  /' "$TMP/log.4m-in"
[ "$rc" = 2 ] || fail "--max-keys 4194304 in 256 MiB exited $rc, want 2"
[ "$(wc -l <"$TMP/log.4m-in")" = 1 ] || fail "want one line on stderr"
grep -q "'--max-keys 4194304' needs up to $((4194304 * (476 + 160))) bytes" "$TMP/log.4m-in" ||
	fail "the refusal does not give the help's cost"
grep -q "memory.* leaves [0-9]*: want --max-keys [0-9]* or less" "$TMP/log.4m-in" ||
	fail "the refusal does not name the memory limit and what fits"
[ ! -e "$TMP/4m-in.csv" ] || fail "a refused run left a file"
sh -c 'echo $$ >"$1/cgroup.procs" && shift && exec "$@"' sh "$MEM" \
	"$BPMC" record -e cpu-clock --max-keys 65536 -d 1 -o "$TMP/in256m.csv" 2>"$TMP/log.in256m" ||
	fail "--max-keys 65536 in 256 MiB exited $?: $(cat "$TMP/log.in256m")"
pass_or_fail
