#!/usr/bin/env bash
# completion/bpmc.bash: `complete -p bpmc` after sourcing it, then the
# completion function with COMP_LINE, COMP_POINT, COMP_WORDS and
# COMP_CWORD as bash sets them (words cut at COMP_WORDBREAKS), checked
# against what bpmc itself prints (the commands of `bpmc --help`, the
# options of `bpmc COMMAND --help`, the tables, events and unit masks of
# `bpmc list`, the cgroup2 tree for -G), then real interactive shells
# under tmux, typing Tab: bash, and zsh with completion/_bpmc installed
# by make install (it runs the bash completion).
. "$(dirname "$0")/lib.sh"
COMP=$ROOT/completion/bpmc.bash
[ -f "$COMP" ] || { fail "no completion/bpmc.bash"; exit 1; }
# The completion runs the bpmc of the command line: this one, as bpmc.
mkdir "$TMP/bin"
ln -s "$BPMC" "$TMP/bin/bpmc"
export PATH=$TMP/bin:$PATH

echo "complete -p bpmc"
reg=$(bash --norc -c ". '$COMP' && complete -p bpmc" 2>&1)
echo "  $reg"
[ "$reg" = "complete -F _bpmc bpmc" ] || fail "after sourcing: '$reg'"

# complete LINE: the candidates for LINE's end, one a line, as bash would
# set the variables: words split at blanks, then at each run of
# COMP_WORDBREAKS characters, which are words of their own.
complete_line() {
	bash --norc -c '
		. "$1"
		COMP_LINE=$2 COMP_POINT=${#2} COMP_WORDS=()
		wb=${COMP_WORDBREAKS//[[:space:]]/}
		word="^([^$wb]+)(.*)\$" breaks="^([$wb]+)(.*)\$"
		for w in $2; do
			while [[ -n $w ]]; do
				[[ $w =~ $word ]] || [[ $w =~ $breaks ]]
				COMP_WORDS+=("${BASH_REMATCH[1]}")
				w=${BASH_REMATCH[2]}
			done
		done
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_bpmc
		printf "%s\n" "${COMPREPLY[@]}"' sh "$COMP" "$1"
}
# expect LINE WANT: the candidates, sorted, are WANT's lines, sorted.
expect() {
	local got want
	got=$(complete_line "$1" | sort -u)
	want=$(sort -u <<<"$2")
	if [ "$got" != "$want" ]; then
		fail "'$1<Tab>': $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -5 | tr '\n' ' ')"
	else
		echo "  '$1<Tab>': $(wc -l <<<"$got") candidate(s), as expected"
	fi
}

echo "commands and options"
cmds=$("$BPMC" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 { print $1 }')
expect "bpmc " "$(printf '%s\n' $cmds help --version --help)"
expect "bpmc re" "$(grep '^re' <<<"$cmds")"
expect "bpmc help " "$(printf '%s\n' $cmds help)"
for c in $cmds; do
	# --help's option lines: "  -e, --events LIST", "      --mode MODE".
	opts=$("$BPMC" "$c" --help | sed -n '/^OPTIONS$/,/^$/p' |
		grep -oE '^ +(-[a-zA-Z0-9], )?--[a-z0-9-]+' | tr -d ' ' | tr ',' '\n')
	expect "bpmc $c -" "$opts"
done
expect "bpmc record --max" "--max-disk
--max-keys"

echo "event names from bpmc list"
LIST=$("$BPMC" list)
tables=$(awk '/^libpfm tables:/ { on = 1; next } /^[^ ]/ { on = 0 } on { print $1 }' <<<"$LIST")
names=$(sed -n '/^events:$/,$p' <<<"$LIST" | grep -v '^events:$' | grep '^[^ ]')
echo "  bpmc list: $(wc -l <<<"$tables") tables, $(wc -l <<<"$names") events"
level1=$(complete_line "bpmc record -e ")
for t in $tables; do
	grep -qxF "$t::" <<<"$level1" || fail "'-e <Tab>' does not offer $t::"
done
for g in cycles instructions cpu-clock page-faults; do
	grep -qxF "$g" <<<"$level1" || fail "'-e <Tab>' does not offer $g"
done
echo "  '-e <Tab>': $(wc -l <<<"$level1") candidates, every table's TABLE:: among them"
# Readline completes what follows the last ':' (COMP_WORDBREAKS).
expect "bpmc record -e perf::" "$(grep '^perf::' <<<"$names" | sed 's/^perf:://')"
expect "bpmc record -e perf::CPU-CL" "CPU-CLOCK"
expect "bpmc record --events=perf::TASK-C" "TASK-CLOCK"
expect "bpmc record -e cpu-clock,page-f" "cpu-clock,page-faults"
expect "bpmc record -e {cpu-clock,task-c" "{cpu-clock,task-clock"
expect "bpmc stat -e task-c" "task-clock"
expect "bpmc encode perf::PAGE-F" "PAGE-FAULTS"
# An event with two unit masks or more, and its masks as bpmc list has them.
ev=$(sed -n '/^events:$/,$p' <<<"$LIST" | awk '/^[^ ]/ { n = $1 } /^    :/ { c[n]++ }
	END { for (e in c) if (c[e] >= 2) print e }' | sort | head -1)
if [ -n "$ev" ]; then
	masks=$(sed -n '/^events:$/,$p' <<<"$LIST" | awk -v e="$ev" '/^[^ ]/ { on = $1 == e; next }
		on && /^    :/ { print $1 }')
	# Readline completes what follows the last ':', so the candidates
	# are the bare masks.
	masks=$(sed 's/^://' <<<"$masks")
	expect "bpmc record -e $ev:" "$masks"
	first=$(head -1 <<<"$masks")
	expect "bpmc record -e $ev:$first:" "$(grep -vxF -- "$first" <<<"$masks")"
	echo "  $ev: $(wc -l <<<"$masks") unit masks"
else
	fail "bpmc list shows no event with two unit masks"
fi
expect "bpmc record --by cgroup,pro" "cgroup,process"
expect "bpmc record --mode s" "sampling"
expect "bpmc record --pmu $(head -1 <<<"$tables")" "$(grep "^$(head -1 <<<"$tables")" <<<"$tables")"
# -G: the cgroup tree under the cgroup2 mount, as bpmc takes paths.
if [ -n "$CG2" ] && [ -w "$CG2" ]; then
	mk_cgroup CGA "bpmc-compl-$$/alpha" && mk_cgroup CGB "bpmc-compl-$$/beta" ||
		fail "cannot make cgroups under $CG2"
	expect "bpmc record -G /bpmc-compl-$$" "/bpmc-compl-$$/"
	expect "bpmc record -G /bpmc-compl-$$/" "/bpmc-compl-$$/alpha/
/bpmc-compl-$$/beta/"
	expect "bpmc record -G /bpmc-compl-$$/alpha,/bpmc-compl-$$/b" "/bpmc-compl-$$/alpha,/bpmc-compl-$$/beta/"
else
	echo "  -G: skipped, no writable cgroup2 mount"
fi
touch "$TMP/out-one.csv"
expect "bpmc record -o $TMP/out-o" "$TMP/out-one.csv"

if ! command -v tmux >/dev/null; then
	echo "interactive shells: skipped, no tmux"
	pass_or_fail
fi
# shell_session NAME CMD SETUP: a shell under tmux at 200x50 on a socket
# of its own, ended by the EXIT trap, with SETUP typed into it.
shell_session() {
	SOCK=bpmc-completion-$1-$$
	ATEXIT+=("tmux -L $SOCK kill-server 2>/dev/null")
	tmux -L "$SOCK" -f /dev/null new-session -d -x 200 -y 50 \
		"env -i PATH='$PATH' HOME='$TMP' TERM=xterm PS1='$ ' $2" ||
		{ fail "tmux new-session $2"; return 1; }
	tmux -L "$SOCK" send-keys "$3" Enter clear Enter
	# Ready once the screen is one bare prompt (compinit takes a while).
	for i in $(seq 50); do
		[ "$(tmux -L "$SOCK" capture-pane -p | grep -v '^$')" = '$' ] && return 0
		sleep 0.1
	done
	fail "$1 did not start: $(tmux -L "$SOCK" capture-pane -p | grep -v '^$')"
	return 1
}
# check_typed WANT KEYS...: KEYS typed on an empty line make it WANT
# within 3 s.
check_typed() {
	local want=$1 got i
	shift
	tmux -L "$SOCK" send-keys C-u
	tmux -L "$SOCK" send-keys "$@"
	for i in $(seq 30); do
		sleep 0.1
		got=$(tmux -L "$SOCK" capture-pane -p | grep '^\$ ' | tail -1)
		[ "$got" = "\$ $want" ] && break
	done
	[ "$got" = "\$ $want" ] || fail "$SHELL_NAME: typing $*: the line is '$got', not '\$ $want'"
	echo "  $*: '$got'"
}
# typing_checks [KEY]: the same keys in each shell, KEY pressed after the
# Tab that should list unit masks (bash lists at the second Tab). capture-pane drops trailing blanks: a '#'
# typed after Tab shows whether a space came (a command, an option) or
# not (an event, which a list or a mask extends).
typing_checks() {
	check_typed "bpmc record #" "bpmc rec" Tab "#"
	check_typed "bpmc record -e perf::CPU-CLOCK#" "bpmc record -e perf::CPU-CL" Tab "#"
	check_typed "bpmc record -e cpu-clock,page-faults#" "bpmc record -e cpu-clock,page-f" Tab "#"
	check_typed "bpmc record --by cgroup,process#" "bpmc record --by cgroup,pro" Tab "#"
	check_typed "bpmc record -e perf_raw::#" "bpmc record -e perf_r" Tab "#"
	check_typed "bpmc record --self-stats #" "bpmc record --self-s" Tab "#"
	[ -n "$ev" ] || return
	tmux -L "$SOCK" send-keys C-u
	tmux -L "$SOCK" send-keys "clear" Enter "bpmc record -e $ev:" Tab ${1:-}
	sleep 1
	shown=$(tmux -L "$SOCK" capture-pane -p)
	missing=0
	for m in $masks; do
		grep -qw -- "$m" <<<"$shown" || { fail "$SHELL_NAME: Tab after '$ev:' does not list $m"; missing=1; }
	done
	[ "$missing" = 1 ] || echo "  Tab after '$ev:': its $(wc -l <<<"$masks") unit masks listed"
}

echo "interactive bash under tmux"
SHELL_NAME=bash
shell_session bash "bash --norc --noprofile" ". '$COMP'" && typing_checks Tab

echo "interactive zsh under tmux, completion/_bpmc as make install lays it out"
if ! command -v zsh >/dev/null && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	apt-get install -y zsh >"$TMP/apt.log" 2>&1 || echo "  apt-get install -y zsh failed: $(tail -1 "$TMP/apt.log")"
fi
if command -v zsh >/dev/null; then
	D=$TMP/root
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" -s --no-print-directory SANITIZE= FUZZ= \
		install DESTDIR="$D" >"$TMP/install.log" 2>&1 || fail "make install: $(cat "$TMP/install.log")"
	FP=$D/usr/local/share/zsh/site-functions
	[ -f "$FP/_bpmc" ] || fail "make install put no $FP/_bpmc"
	SHELL_NAME=zsh
	shell_session zsh "zsh -f" "fpath=('$FP' \$fpath); autoload -U compinit; compinit -u -D" &&
		typing_checks
else
	echo "  skipped: no zsh"
fi
pass_or_fail
