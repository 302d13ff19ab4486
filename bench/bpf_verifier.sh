#!/usr/bin/env bash
# The BPF programs' size and verifier cost, loaded as bpmc record loads
# them in each mode (bench/bpf_verifier.c): one "bpf_prog" line a
# program. Debian 12 has no veristat: the figures come from bpf_prog_info
# and the verifier's BPF_LOG_STATS log. Under a second.
. "$(dirname "$0")/lib.sh"
"$ROOT/build/bench/bpf_verifier"
