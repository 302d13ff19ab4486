#!/usr/bin/env bash
# The house rules of docs/architecture.md, checked on the sources: each
# folder of user/ includes only the stages below it (and the ground
# floor), includes name their folder, rows/ reaches sinks only through
# sink.h, and nothing under cmd/ prints (modules fill a struct error).
# bpmc-test: static
. "$(dirname "$0")/lib.sh"
cd "$ROOT/user" || exit 1

# folder -> the folders it may include (itself always).
declare -A may=(
	[common]=""
	[identity]="common"
	[sinks]="common"
	[names]="common"
	[fds]="common names"
	[maps]="common names fds"
	[rows]="common names fds maps identity sinks"
	[report]="common names identity sinks"
	[pmc]="common names fds"
	[symbols]="common"
	[top]="common names fds maps rows identity sinks"
	[cmd]="common names fds maps rows identity sinks report pmc symbols top"
)

n=0
for f in */*.[ch]; do
	dir=${f%%/*}
	[ -n "${may[$dir]+x}" ] || { fail "$f: folder '$dir' has no place in the layout"; continue; }
	while read -r inc; do
		n=$((n + 1))
		case $inc in
		collect.h | collect.skel.h | pmc.h) continue ;; # include/ and the build
		*/*) ;;
		*) fail "$f: #include \"$inc\" does not name its folder"; continue ;;
		esac
		to=${inc%%/*}
		[ "$to" = "$dir" ] && continue
		[[ " ${may[$dir]} " == *" $to "* ]] || fail "$f includes $inc: '$dir' may not reach '$to'"
		[ "$dir" = rows ] && [ "$to" = sinks ] && [ "$inc" != sinks/sink.h ] &&
			fail "$f includes $inc: rows/ reaches sinks only through sink.h"
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
echo "  $n includes checked in $(ls */*.[ch] | wc -l) files"

# Only commands print; the printers themselves live in common/util.c.
printers=$(grep -ln '\bp_\(err\|warn\|info\)(' */*.c | grep -v '^cmd/\|^common/util.c$')
[ -z "$printers" ] || fail "modules that print instead of filling a struct error: $printers"

# The skeleton is maps/' alone.
skel=$(grep -l 'collect.skel.h\|bpf/libbpf.h\|bpf/bpf.h' */*.[ch] | grep -v '^maps/')
[ -z "$skel" ] || fail "libbpf outside maps/: $skel"
pass_or_fail
