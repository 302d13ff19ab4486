# bash completion for bpmc(1): commands, each command's options (from the
# hidden `bpmc COMMAND --list-options`, so they follow the option tables),
# and event names from `bpmc list` after -e, --events and --event, and as
# encode's and list's operands, by levels: TABLE:: first, then
# TABLE::EVENT, then its unit masks, TABLE::EVENT:UMASK, each element of
# a comma-separated list or a {group} on its own.
# Installed as PREFIX/share/bash-completion/completions/bpmc; source it
# to try it (`. completion/bpmc.bash`). It runs the bpmc being completed
# (the command line's first word: ./bpmc too), and caches what it asked.

# _bpmc_ask WHAT ARGS...: the output of bpmc ARGS, cached per binary in
# _bpmc_cache[binary WHAT].
declare -gA _bpmc_cache
_bpmc_ask() {
	local what=$1 bin
	shift
	bin=$(type -P -- "$_bpmc_bin") || return 1
	local key="$bin $what"
	if [[ -z ${_bpmc_cache[$key]+x} ]]; then
		_bpmc_cache[$key]=$("$bin" "$@" 2>/dev/null)
	fi
	_bpmc_reply=${_bpmc_cache[$key]}
}

# Event names: `bpmc list --names` (hidden) prints each one a line, each
# unit mask as NAME:UMASK, and perf's generic names in lower case too.
_bpmc_events() {
	_bpmc_ask events list --names
}

# _bpmc_event_words CUR: the candidates for one event of a list, by level.
_bpmc_event_words() {
	local cur=$1 e rest head ev
	local -A seen=()
	_bpmc_events || return
	while IFS= read -r e; do
		if [[ $cur != *::* ]]; then
			# Level 1: bare names, sysfs PMU/event/, and TABLE:: alone.
			if [[ $e == *::* ]]; then
				e="${e%%::*}::"
			elif [[ $e == *:* ]]; then
				continue
			fi
		elif rest=${cur#*::}; [[ $rest != *:* ]]; then
			# Level 2: TABLE::EVENT, without its unit masks.
			[[ ${e#*::} == *:* ]] && continue
		else
			# Level 3: the unit masks of TABLE::EVENT not given yet.
			head=${cur%:*}
			ev=${cur%%::*}::${rest%%:*}
			[[ $e == "$ev":* && ":${head#"$ev"}:" != *":${e##*:}:"* ]] ||
				continue
			e="$head:${e##*:}"
		fi
		[[ $e == "$cur"* && -z ${seen[$e]+x} ]] || continue
		seen[$e]=1
		printf '%s\n' "$e"
	done <<<"$_bpmc_reply"
}

# _bpmc_starting CUR: the lines of stdin that start with CUR.
_bpmc_starting() {
	local l
	while IFS= read -r l; do
		[[ -n $l && $l == "$1"* ]] && printf '%s\n' "$l"
	done
}

# _bpmc_options CMD: its spellings; _bpmc_takes_value CMD OPT: whether
# OPT takes its value in the next word.
_bpmc_options() {
	_bpmc_ask "options $1" "$1" --list-options || return
	local o
	while read -r o _; do
		printf '%s\n' "${o%%\[=*}"
	done <<<"$_bpmc_reply"
}
_bpmc_takes_value() {
	_bpmc_ask "options $1" "$1" --list-options || return 1
	local o arg
	while read -r o arg; do
		[[ $o == "$2" && -n $arg ]] && return 0
	done <<<"$_bpmc_reply"
	return 1
}

# _bpmc_values CMD OPT CUR: what OPT's value can be.
_bpmc_values() {
	local cmd=$1 opt=$2 cur=$3 list=${3%"${3##*[,\{]}"}
	case $opt in
	-e | --events | --event)
		local w
		while IFS= read -r w; do
			[[ -n $w ]] && printf '%s\n' "$list$w"
		done < <(_bpmc_event_words "${cur:${#list}}")
		;;
	--pmu)
		_bpmc_ask list list || return
		awk '/^libpfm tables:/ { on = 1; next } /^[^ ]/ { on = 0 }
			on { print $1 }' <<<"$_bpmc_reply" | _bpmc_starting "$cur"
		;;
	--mode) printf '%s\n' exact sampling | _bpmc_starting "$cur" ;;
	--by | -b)
		local scopes
		case $cmd in
		record) scopes="cgroup process thread container" ;;
		top) scopes="container pod cgroup process thread" ;;
		report) scopes="host container pod cgroup process thread comm" ;;
		esac
		local s
		for s in $scopes; do
			printf '%s\n' "${cur%"${cur##*,}"}$s"
		done | _bpmc_starting "$cur"
		;;
	-G | --cgroup)
		# Cgroup paths as bpmc takes them: from the cgroup2 mount, which
		# mountinfo says (hybrid hosts have it at .../unified).
		local mnt last=${cur##*,} d
		mnt=$(awk '{ for (i = 1; i <= NF; i++) if ($i == "-") {
			if ($(i + 1) == "cgroup2") print $5; break } }' /proc/self/mountinfo)
		mnt=${mnt%%$'\n'*}
		[[ -n $mnt && ( -z $last || $last == /* ) ]] || return
		while IFS= read -r d; do
			[[ -n $d ]] && printf '%s\n' "${cur%"$last"}${d#"$mnt"}/"
		done < <(compgen -d -- "$mnt${last:-/}")
		;;
	-o | --output | --html | --textfile | --kube-pods-dir | --kube-containers-dir)
		compgen -f -- "$cur"
		;;
	esac
}

_bpmc() {
	local _bpmc_bin=${COMP_WORDS[0]} _bpmc_reply
	local line=${COMP_LINE:0:COMP_POINT} token prev cmd pre= i valued=
	local -a words
	read -ra words <<<"$line"
	if [[ $line == *[[:space:]] || -z $line ]]; then
		token=
		prev=${words[${#words[@]} - 1]}
	else
		token=${words[${#words[@]} - 1]}
		prev=${words[${#words[@]} - 2]:-}
		unset 'words[${#words[@]}-1]'
	fi
	cmd=${words[1]:-}
	local -a cands=()
	if [[ ${#words[@]} -le 1 ]]; then
		_bpmc_ask commands --list-commands
		mapfile -t cands < <(printf '%s\n' $_bpmc_reply --version --help |
			_bpmc_starting "$token")
	elif [[ $cmd == help && ${#words[@]} -eq 2 ]]; then
		_bpmc_ask commands --list-commands
		mapfile -t cands < <(_bpmc_starting "$token" <<<"$_bpmc_reply")
	elif [[ $token == --*=* ]]; then
		pre=${token%%=*}= valued=${token%%=*}
		mapfile -t cands < <(_bpmc_values "$cmd" "$valued" "${token#*=}")
	elif [[ $prev == -* ]] && _bpmc_takes_value "$cmd" "$prev"; then
		valued=$prev
		mapfile -t cands < <(_bpmc_values "$cmd" "$prev" "$token")
	elif [[ $token == -* ]]; then
		mapfile -t cands < <(_bpmc_options "$cmd" | _bpmc_starting "$token")
	else
		case $cmd in
		encode | list)
			valued=-e
			mapfile -t cands < <(_bpmc_values "$cmd" -e "$token")
			;;
		stat)
			# The command counted, then its arguments.
			for ((i = 2; i < ${#words[@]}; i++)); do
				[[ ${words[i]} == -- ]] && break
			done
			if ((i == ${#words[@]} - 1)); then
				mapfile -t cands < <(compgen -c -- "$token" | sort -u)
			else
				mapfile -t cands < <(compgen -f -- "$token")
			fi
			;;
		report) mapfile -t cands < <(compgen -f -- "$token") ;;
		esac
	fi
	# Readline replaces only what follows the last COMP_WORDBREAKS
	# character (: and = among them): the candidates lose what precedes.
	local wb=${COMP_WORDBREAKS-$' \t\n"\'><=;|&(:'} word cut
	word=${token##*[$wb]}
	cut=$((${#token} - ${#word}))
	COMPREPLY=()
	for i in "${cands[@]}"; do
		i=$pre$i
		COMPREPLY+=("${i:cut}")
	done
	# An event goes on with , : or }, a list with , and a path with /:
	# no space.
	case $valued in
	-e | --events | --event | --by | -b | -G | --cgroup)
		compopt -o nospace 2>/dev/null
		;;
	esac
	return 0
}
complete -F _bpmc bpmc
