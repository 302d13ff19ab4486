#!/usr/bin/env bash
# The soak (tests/soak/soak.sh) in 30 s with a third of `make soak`'s
# counts: 167 cgroups and 3,333 processes churned under both modes with
# --by cgroup,process,thread, then a run with a --max-keys too small.
# RSS flat after warm-up, every interval on the grid, no loss while
# --max-keys fits, loss counted and said when it does not.
# Under ASan, without its quarantine (256 MiB of freed memory held back,
# which grows RSS with every free until it is full): RSS flat is then
# bpmc's own; leaks are still checked at exit.
[ "${SANITIZE:-}" = 1 ] &&
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
SOAK_SECONDS=30 SOAK_CGROUPS=167 SOAK_PROCS=3333 \
	exec bash "$(dirname "$0")/../soak/soak.sh"
