# Sourced by tests/integration/lib.sh and bench/lib.sh: start background
# processes, and end only those, by PID, on the way out.
PIDS=()

# spawn CMD...: starts CMD in the background, registered; sets SPAWNED.
spawn() {
	"$@" &
	SPAWNED=$!
	PIDS+=("$SPAWNED")
}

# is_my_child PID: still alive and still this shell's child.
is_my_child() {
	[ "$(awk '/^PPid:/ { print $2 }' "/proc/$1/status" 2>/dev/null)" = "$$" ]
}

# Ends the children not reaped yet: a reaped PID may be someone else's.
end_children() {
	local pid live=" $(jobs -p | tr '\n' ' ') "

	for pid in "${PIDS[@]}"; do
		[[ $live == *" $pid "* ]] && is_my_child "$pid" &&
			kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${PIDS[@]}"; do
		[[ $live == *" $pid "* ]] && wait "$pid" 2>/dev/null
	done
}
