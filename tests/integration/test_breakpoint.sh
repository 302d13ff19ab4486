#!/usr/bin/env bash
# A write breakpoint through perf's grammar (mem:ADDR:w) counts a
# helper's writes from user space exactly. Not every machine delivers
# one: some hypervisors (seen on Zen 5 VMs) never deliver debug-register
# breakpoints, and perf stat counts 0 there too. tests/helpers/bp_probe
# asks the kernel directly first, and the test skips, saying why, where
# the machine cannot; where it can, bpmc must count every write.
. "$(dirname "$0")/lib.sh"
need_root

N=1000
probe=$("$HELPERS/bp_probe" "$N")
case $? in
0) echo "  probe: ${probe#breakpoint: }" ;;
2) skip "this machine cannot deliver a write breakpoint: $(sed 's/^breakpoint: //' <<<"$probe" | paste -sd ';' | sed 's/;/; /g')" ;;
*) fail "the probe: $probe"; pass_or_fail ;;
esac

# The helper's global, at one address under setarch -R (no ASLR), so a
# breakpoint set by address before the run counts exactly its writes.
addr=$(setarch -R "$HELPERS/bpwrite" --addr)
out=$("$BPMC" stat -x, -e "mem:$addr:w/name=target/" -- setarch -R "$HELPERS/bpwrite" "$N" 2>&1)
user=$(awk -F, '$1 ~ /^mem:/ { print $2 }' <<<"$out")
echo "  mem:$addr:w over bpwrite's $N writes: user $user"
[ "$user" = "$N" ] || fail "the write breakpoint counted '$user' user writes, want $N: $out"
pass_or_fail
