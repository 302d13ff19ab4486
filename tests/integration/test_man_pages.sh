#!/usr/bin/env bash
# The manual of the commands, held to the binary so that neither drifts:
# - every page of man/ (and docs/pmc_control.3) passes `mandoc -Tlint
#   -Wstyle` but for references to pages of other packages, and every
#   reference to one of ours names a page that exists;
# - each command of `bpmc --list-commands` has its page, is in bpmc(1),
#   and its page lists exactly the options of its table (`bpmc COMMAND
#   --list-options`), in the option list and in the SYNOPSIS, and shows
#   every example of its --help;
# - `bpmc help COMMAND` prints what `bpmc COMMAND --help` prints;
# - make install DESTDIR= puts the pages in share/man/man1, where man
#   finds them, and make uninstall takes them away.
# bpmc-test: static
. "$(dirname "$0")/lib.sh"
MAN=$ROOT/man
# The tests run under make: a nested make must not take its jobserver.
MAKE_CLEAN=(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s
	--no-print-directory SANITIZE= FUZZ=)

# The full suite (root) installs mandoc where it lacks; the fast phases
# (tests/run without --integration: make check) never install anything.
if ! command -v mandoc >/dev/null && [ "$(id -u)" = 0 ] && [ -z "${BPMC_TEST_NO_INSTALL:-}" ] &&
	command -v apt-get >/dev/null; then
	apt-get install -y mandoc >"$TMP/apt.log" 2>&1 ||
		echo "  apt-get install -y mandoc failed: $(tail -1 "$TMP/apt.log")"
fi
if ! command -v mandoc >/dev/null; then
	if [ "$(id -u)" != 0 ]; then
		skip "mandoc is not installed (Debian: apt-get install mandoc, as root)"
	elif [ -n "${BPMC_TEST_NO_INSTALL:-}" ]; then
		skip "mandoc is not installed, and this run installs nothing (BPMC_TEST_NO_INSTALL; Debian: apt-get install mandoc)"
	fi
	skip "mandoc is not installed and apt-get could not install it"
fi

pages=("$MAN"/*.1 "$ROOT/docs/pmc_control.3")
ours=$(for p in "${pages[@]}"; do basename "$p"; done)
echo "mandoc -Tlint -Wstyle on ${#pages[@]} pages"
for p in "${pages[@]}"; do
	lint=$(mandoc -Tlint -Wstyle "$p" 2>&1 | grep -v 'referenced manual not found\|mandoc.db')
	[ -z "$lint" ] || fail "$(basename "$p"): $lint"
	# Each reference to a page of ours names one that is there.
	while read -r name sec; do
		case $name in bpmc* | pmc_*) ;; *) continue ;; esac
		grep -qxF "$name.$sec" <<<"$ours" || fail "$(basename "$p"): .Xr $name $sec: no such page here"
	done < <(sed -n 's/^\.Xr \([^ ]*\) \([0-9]\).*/\1 \2/p' "$p")
	mandoc -Tascii "$p" >/dev/null 2>&1 || fail "mandoc cannot render $(basename "$p")"
done
[ "$FAILED" = 0 ] && echo "  clean"

# render PAGE: plain text, wide, without overstrike.
render() { mandoc -Tascii -Owidth=250 "$1" | col -b; }
# spellings FILE: "-e", "--events"... of the .It Fl lines (the option
# list) or of the SYNOPSIS' Op Fl, one a line, sorted.
it_spellings() {
	grep '^\.It Fl ' "$1" | grep -oE 'Fl \\?-?[A-Za-z0-9][A-Za-z0-9-]*' |
		sed -e 's/^Fl //' -e 's/\\-/-/' -e 's/^/-/' | sort -u
}
synopsis_spellings() {
	sed -n '/^\.Sh SYNOPSIS/,/^\.Sh/p' "$1" | grep '^\.Op Fl ' |
		grep -oE '^\.Op Fl \\?-?[A-Za-z0-9][A-Za-z0-9-]*' |
		sed -e 's/^\.Op Fl //' -e 's/\\-/-/' -e 's/^/-/' | sort -u
}

# check_examples PAGE HELP: PAGE's EXAMPLES show every example of the
# --help text HELP (its command, without the comment); NR_EXAMPLES says
# how many. Not in $(...): fail must set FAILED here.
check_examples() {
	local text ex n=0
	text=$(render "$1" | sed -n '/^EXAMPLES/,/^SEE ALSO/p' | tr -s ' \t' ' ')
	while IFS= read -r ex; do
		ex=$(sed -e 's/  *#.*//' -e 's/^ *//' <<<"$ex" | tr -s ' \t' ' ')
		[ -n "$ex" ] || continue
		n=$((n + 1))
		grep -qF -- "$ex" <<<"$text" || fail "$(basename "$1")'s EXAMPLES lack '$ex'"
	done < <(sed -n '/^EXAMPLES$/,$p' <<<"$2" | tail -n +2)
	NR_EXAMPLES=$n
}

echo "each command's page against its option table"
cmds=$("$BPMC" --list-commands) || fail "bpmc --list-commands failed"
grep -qx top <<<"$cmds" ||
	echo "  top is not a command of this build: bpmc-top.1 is linted, not checked against a table"
for c in $cmds; do
	[ "$c" = help ] && continue
	grep -qx "\.It Cm $c.*" "$MAN/bpmc.1" || fail "bpmc.1 does not describe the command $c"
	[ "$c" = version ] && continue # bpmc(1) describes it
	page=$MAN/bpmc-$c.1
	[ -f "$page" ] || { fail "$c has no man/bpmc-$c.1"; continue; }
	grep -q "^\.Xr bpmc-$c 1" "$MAN/bpmc.1" || fail "bpmc.1 has no .Xr bpmc-$c 1"
	table=$("$BPMC" "$c" --list-options | awk '{ sub(/\[=.*/, "", $1); print $1 }' | sort -u)
	listed=$(it_spellings "$page")
	[ "$listed" = "$table" ] ||
		fail "bpmc-$c.1's options differ from $c's table (< table, > page): $(diff <(echo "$table") <(echo "$listed") | grep '^[<>]' | tr '\n' ' ')"
	# The SYNOPSIS has what the usage line has: the short spelling
	# where there is one, else the long, and no --help.
	usage=$("$BPMC" "$c" --help | sed '/^$/q' | grep -oE '\[--?[A-Za-z0-9][A-Za-z0-9-]*' |
		tr -d '[' | sort -u)
	synopsis=$(synopsis_spellings "$page")
	[ "$synopsis" = "$usage" ] ||
		fail "bpmc-$c.1's SYNOPSIS differs from the usage line (< usage, > page): $(diff <(echo "$usage") <(echo "$synopsis") | grep '^[<>]' | tr '\n' ' ')"
	check_examples "$page" "$("$BPMC" "$c" --help)"
	echo "  $c: $(wc -l <<<"$table") option spellings, $(wc -w <<<"$synopsis") in the SYNOPSIS, $NR_EXAMPLES examples: as the binary has them"
done
check_examples "$MAN/bpmc.1" "$("$BPMC" --help)"
echo "  bpmc.1: the $NR_EXAMPLES examples of bpmc --help"

echo "bpmc help COMMAND"
for c in $cmds; do
	[ "$c" = help ] && continue
	want=$("$BPMC" "$c" --help 2>&1) || fail "bpmc $c --help exited $?"
	got=$("$BPMC" help "$c" 2>&1) || fail "bpmc help $c exited $?"
	[ "$got" = "$want" ] || fail "bpmc help $c differs from bpmc $c --help"
	grep -q '^EXAMPLES$' <<<"$got" || fail "bpmc help $c has no EXAMPLES"
done
echo "  the same text as COMMAND --help, for $(grep -cvx help <<<"$cmds") commands, each with EXAMPLES"
"$BPMC" help >"$TMP/help.out" 2>&1 || fail "bpmc help exited $?"
"$BPMC" --help | cmp -s - "$TMP/help.out" || fail "bpmc help differs from bpmc --help"
"$BPMC" help help | cmp -s - "$TMP/help.out" || fail "bpmc help help differs from bpmc --help"
"$BPMC" help no-such-command >"$TMP/out" 2>"$TMP/err"
rc=$?
[ "$rc" = 2 ] || fail "bpmc help no-such-command exited $rc, not 2"
[ -s "$TMP/out" ] && fail "bpmc help no-such-command wrote on stdout: $(cat "$TMP/out")"
[ "$(wc -l <"$TMP/err")" = 1 ] && grep -q "'no-such-command'" "$TMP/err" ||
	fail "bpmc help no-such-command said: $(cat "$TMP/err")"
echo "  bpmc help no-such-command: exit $rc, $(cat "$TMP/err")"

echo "make install DESTDIR=, make uninstall"
D=$TMP/root
"${MAKE_CLEAN[@]}" install DESTDIR="$D" >"$TMP/install.log" 2>&1 ||
	{ fail "make install DESTDIR=$D: $(cat "$TMP/install.log")"; exit 1; }
M=$D/usr/local/share/man
for p in "$MAN"/*.1; do
	f=$M/man1/$(basename "$p")
	cmp -s "$p" "$f" || { fail "not installed as it is: $f"; continue; }
	[ "$(stat -c %a "$f")" = 644 ] || fail "$f is mode $(stat -c %a "$f")"
done
if command -v man >/dev/null; then
	# man finds them by name in that tree, as it would in /usr/local.
	for n in bpmc bpmc-record bpmc-top; do
		MANPAGER=cat MANWIDTH=80 man -M "$M" "$n" 2>/dev/null | grep -q "^NAME" ||
			fail "man -M $M $n finds no page"
	done
	echo "  man -M finds bpmc, bpmc-record, bpmc-top"
fi
"${MAKE_CLEAN[@]}" uninstall DESTDIR="$D" >/dev/null 2>&1 || fail "make uninstall failed"
left=$(cd "$D" && find . \( -type f -o -type l \) -printf '/%P\n')
[ -z "$left" ] || fail "make uninstall left: $left"
echo "  $(ls "$MAN"/*.1 | wc -l) pages in share/man/man1; nothing left after make uninstall"
pass_or_fail
