#!/usr/bin/env bash
# bpmc-test: static
# user/layers, held at link level: with nm on the stage archives
# (BPMC_BUILD/libSTAGE.a, pmc's libpmc-stage.a), every symbol a stage's
# objects leave undefined is defined in that stage or in a stage it may
# use; the rest must come from libc or the external libraries of its
# line and its uses' (the linker itself checks those: every object of
# the stage linked with only what it may use). Within a stage, no two
# objects call each other, however far round: the objects' "uses a
# symbol of" graph has no circle (tsort). Needs the build (make check
# builds first); no root.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/layers.sh"
BUILD=${BPMC_BUILD:-$ROOT/build}
export LC_ALL=C # sort, comm and join agree on the order

archive() { echo "$BUILD/lib$1$([ "$1" = pmc ] && echo -stage).a"; }
for s in "${STAGES[@]}"; do
	[ -f "$(archive "$s")" ] || skip "no $(archive "$s"): build first (make test-bins)"
done

# SYMBOL STAGE for every global symbol an archive defines.
for s in "${STAGES[@]}"; do
	nm -g --defined-only "$(archive "$s")" 2>/dev/null |
		awk -v s="$s" 'NF == 3 { print $3, s }'
done | sort -u > "$TMP/defined"

refs=0 cross=0 external=0
declare -A used=()
for s in "${STAGES[@]}"; do
	a=$(archive "$s")
	# MEMBER SYMBOL for each undefined reference of each object.
	nm -A -u "$a" 2>/dev/null | sed -n 's/^[^:]*:\([^:]*\):.* U \(.*\)$/\1 \2/p' |
		sort -u > "$TMP/undefined.$s"
	awk '{ print $2 }' "$TMP/undefined.$s" | sort -u > "$TMP/names.$s"
	grep " $s\$" "$TMP/defined" | awk '{ print $1 }' > "$TMP/own.$s"
	comm -23 "$TMP/names.$s" "$TMP/own.$s" > "$TMP/refs.$s"
	join "$TMP/refs.$s" "$TMP/defined" > "$TMP/resolved.$s"
	refs=$((refs + $(wc -l < "$TMP/refs.$s")))
	external=$((external + $(join -v 1 "$TMP/refs.$s" "$TMP/defined" | wc -l)))
	while read -r sym t; do
		cross=$((cross + 1))
		used["$s $t"]=1
		[[ " ${MAY[$s]} " == *" $t "* ]] ||
			fail "$s/ uses $sym, defined in $t/, which user/layers does not let it link"
	done < "$TMP/resolved.$s"

	# The circles between objects of the stage: "a b" when a uses b.
	nm -A -g --defined-only "$a" 2>/dev/null |
		sed -n 's/^[^:]*:\([^:]*\):[0-9a-f]* [A-Za-z] \(.*\)$/\2 \1/p' |
		sort -k1,1 > "$TMP/members.$s"
	{
		awk '{ print $1, $1 }' "$TMP/members.$s" | awk '{ print $2, $2 }'
		sort -k2,2 "$TMP/undefined.$s" | join -1 2 -2 1 - "$TMP/members.$s" |
			awk '$2 != $3 { print $2, $3 }'
	} | sort -u > "$TMP/graph.$s"
	loop=$(tsort "$TMP/graph.$s" 2>&1 >/dev/null | sed -n 's/^tsort: \([^ -][^ ]*\.o\)$/\1/p' | tr '\n' ' ')
	[ -z "$loop" ] || fail "$s/: these objects call each other round a circle: $loop"
done

# The external libraries: each stage's objects, all of them, linked with
# the archives and libraries its line allows and nothing else. Not under
# the sanitizers, whose runtime the program brings.
linked=0
if nm -u "$(archive common)" | grep -q '__asan_\|__ubsan_'; then
	echo "  (sanitized build: the external libraries are not link-checked)"
else
	echo 'int main(void) { return 0; }' > "$TMP/main.c"
	cc -c -o "$TMP/main.o" "$TMP/main.c" || fail "cannot compile a main"
	for s in "${STAGES[@]}"; do
		[ "$s" = cmd ] && continue # the binary's own link does it
		libs=${LIBS[$s]}
		archives=()
		for t in ${MAY[$s]}; do
			libs+=" ${LIBS[$t]}"
			archives+=("$(archive "$t")")
		done
		out=$(cc -no-pie -o "$TMP/link.$s" "$TMP/main.o" \
			-Wl,--whole-archive "$(archive "$s")" -Wl,--no-whole-archive \
			-Wl,--start-group "${archives[@]}" -Wl,--end-group $libs 2>&1) ||
			fail "$s/ does not link with only what user/layers gives it: $(echo "$out" | grep -m3 'undefined reference' | sed 's/.*: //' | tr '\n' ' ')"
		linked=$((linked + 1))
	done
fi

allowed=0
for s in "${STAGES[@]}"; do
	set -- ${MAY[$s]}
	allowed=$((allowed + $#))
done
echo "  $refs undefined symbols checked in ${#STAGES[@]} stage archives: $cross resolved in another stage (${#used[@]} stage pairs used of $allowed allowed), $external from libc and the external libraries ($linked stages link-checked)"
pass_or_fail
