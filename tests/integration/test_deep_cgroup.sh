#!/usr/bin/env bash
# A cgroup deeper than PATH_MAX (25 levels of 200-byte names, about 5 KB
# of path), made before bpmc starts: its rows carry its id and a path
# shortened with a marker, never an empty path that would read as "gone
# before seen". Made and removed through directory fds (python), since
# the shell's paths stop at 4096 bytes.
. "$(dirname "$0")/lib.sh"
need_root
command -v python3 >/dev/null || skip "python3 is not installed"
TOP="bpmc-test-$$"
LEVEL=$(printf 'd%.0s' $(seq 200))

deep() { # deep make|remove|enter CMD...
	python3 - "$CG2" "$TOP" "$LEVEL" "$@" <<'PY'
import os, sys
root, top, level, op, *cmd = sys.argv[1:]
fds = [os.open(root, os.O_RDONLY | os.O_DIRECTORY)]
names = [top] + [level] * 24
if op == "remove":
    for n in names:  # walk down as far as it goes, then rmdir back up
        try:
            fds.append(os.open(n, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
        except FileNotFoundError:
            break
    for i in range(len(fds) - 1, 0, -1):
        os.rmdir(names[i - 1], dir_fd=fds[i - 1])
    sys.exit(0)
for n in names:
    if op == "make":
        os.mkdir(n, 0o755, dir_fd=fds[-1])
    fds.append(os.open(n, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
if op == "id":
    print(os.fstat(fds[-1]).st_ino)
elif op == "enter":  # run CMD inside the deepest cgroup
    pid = os.getpid()
    fd = os.open("cgroup.procs", os.O_WRONLY, dir_fd=fds[-1])
    os.write(fd, str(pid).encode())
    os.execv(cmd[0], cmd)
PY
}
ATEXIT+=("deep remove")
deep make || { fail "cannot make a 25-level cgroup"; exit 1; }
id=$(deep id)
start_record "$TMP/log" -e cpu-clock -I 500 -d 2 -o "$TMP/out.csv" || exit 1
deep enter "$HELPERS/burner" 50 1 &
burn=$!
PIDS+=("$burn")
wait "$burn" "$RECORD_PID" || fail "record failed: $(cat "$TMP/log")"
path=$(csv_awk -v id="$id" '$col("scope") == "cgroup" && $col("cgroup_id") == id { print $col("cgroup"); exit }' "$TMP/out.csv")
echo "  cgroup $id: '${path:0:60}...${path: -40}' (${#path} bytes)"
[ -n "$path" ] || fail "the deep cgroup's rows have no path"
[[ $path == "/$TOP/"*"bytes cut)"*"/$LEVEL" ]] ||
	fail "the path does not keep its start, a marker and its leaf"
[ "${#path}" -le 4000 ] || fail "the path is ${#path} bytes, over 4000"
pass_or_fail
