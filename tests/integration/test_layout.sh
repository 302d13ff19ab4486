#!/usr/bin/env bash
# bpmc-test: static
# The house rules of docs/architecture.md, checked on the sources against
# user/layers, the one table of which stage may use which: each folder of
# user/ includes only what its line allows (its uses and theirs, and its
# types-only stages), includes name their folder, rows/ and top/ reach
# sinks only through sink.h, nothing outside cmd/ prints (modules fill a
# struct error), and docs/architecture.md quotes the table as it is.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/layers.sh"
cd "$ROOT/user" || exit 1

# The table itself: every folder has a line, every line a folder, every
# stage it names is one, and no stage reaches itself.
for d in */; do
	d=${d%/}
	[ -n "${MAY[$d]+x}" ] || fail "user/$d/ has no line in user/layers"
done
for s in "${STAGES[@]}"; do
	[ -d "$s" ] || fail "user/layers: stage '$s' has no folder in user/"
	for u in ${USES[$s]} ${TYPES[$s]}; do
		[ -n "${MAY[$u]+x}" ] || fail "user/layers: '$s' uses '$u', which has no line"
	done
	[[ ${MAY[$s]} == *CIRCLE* ]] && fail "user/layers: '$s' reaches itself"
done

n=0
for f in */*.[ch]; do
	dir=${f%%/*}
	[ -n "${MAY[$dir]+x}" ] || continue
	while read -r inc; do
		n=$((n + 1))
		case $inc in
		collect.h | collect.skel.h | pmc.h) continue ;; # include/ and the build
		*/*) ;;
		*) fail "$f: #include \"$inc\" does not name its folder"; continue ;;
		esac
		to=${inc%%/*}
		[ "$to" = "$dir" ] && continue
		[[ " ${MAY[$dir]} ${TYPES[$dir]} " == *" $to "* ]] ||
			fail "$f includes $inc: user/layers does not let '$dir' use '$to'"
		case $dir in rows | top)
			[ "$to" = sinks ] && [ "$inc" != sinks/sink.h ] &&
				fail "$f includes $inc: $dir/ reaches sinks only through sink.h" ;;
		esac
	done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
done
pairs=0
for s in "${STAGES[@]}"; do
	set -- ${MAY[$s]} ${TYPES[$s]}
	pairs=$((pairs + $#))
done
echo "  $n includes checked in $(ls */*.[ch] | wc -l) files, ${#STAGES[@]} stages, $pairs stage pairs allowed"

# Only commands print; the printers themselves live in common/util.c.
printers=$(grep -ln '\bp_\(err\|warn\|info\)(' */*.c | grep -v '^cmd/\|^common/util.c$')
[ -z "$printers" ] || fail "modules that print instead of filling a struct error: $printers"

# The skeleton is maps/' alone.
skel=$(grep -l 'collect.skel.h\|bpf/libbpf.h\|bpf/bpf.h' */*.[ch] | grep -v '^maps/')
[ -z "$skel" ] || fail "libbpf outside maps/: $skel"

# docs/architecture.md quotes the table (its first fenced block after
# "## The layers", spaces aside) and has a paragraph per stage.
doc="$ROOT/docs/architecture.md"
quoted=$(awk '/^## The layers/ { on = 1; next } on && /^```/ { if (in_block) exit; in_block = 1; next }
	in_block' "$doc" | tr -s ' \t' ' ' | sed 's/ *$//')
table=$(grep -v '^#' "$LAYERS_FILE" | sed '/^[[:space:]]*$/d' | tr -s ' \t' ' ' | sed 's/ *$//')
[ -n "$quoted" ] || fail "docs/architecture.md has no '## The layers' block quoting user/layers"
[ "$quoted" = "$table" ] || fail "docs/architecture.md's layers disagree with user/layers: $(diff <(echo "$table") <(echo "$quoted") | grep '^[<>]' | tr '\n' ' ')"
for s in "${STAGES[@]}"; do
	grep -q "^\*\*\`$s/\`\*\*" "$doc" || fail "docs/architecture.md has no paragraph for $s/"
done
for d in $(sed -n 's/^\*\*`\([a-z_]*\)\/`\*\*.*/\1/p' "$doc"); do
	[ -n "${MAY[$d]+x}" ] || fail "docs/architecture.md describes $d/, which user/layers lacks"
done
pass_or_fail
