#!/usr/bin/env bash
# bpmc-test: static
# Errors always say why: no function of user/ that has a struct error at
# hand (a parameter, or a handle such as a sink that holds one) returns a
# bare -Exxx without filling it, for the command would then print an
# empty refusal (tests/helpers/bare_errno.py says how it reads C). The
# checker is first run on a sample of each shape it must find and must
# let pass, so that a checker that finds nothing cannot pass this test.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
CHECK=(python3 "$ROOT/tests/helpers/bare_errno.py")

cat >"$TMP/sample.c" <<'EOF'
struct error { char msg[8]; };
struct holder { int x; struct error error; };
int error__set(struct error *e, int errnum, const char *fmt, ...);
int fill(int x, struct error *err);

int bare_param(int x, struct error *err)
{
	if (x < 0)
		return -EINVAL; /* FIND */
	return 0;
}

int bare_handle(struct holder *h)
{
	char *p = malloc(1);

	if (!p)
		return -ENOMEM; /* FIND */
	return 0;
}

int bare_after_branch(int x, struct error *err)
{
	if (x)
		return error__set(err, EINVAL, "x");
	if (x > 2) {
		error__set(err, EINVAL, "x");
		return -EINVAL;
	}
	return -ENOENT; /* FIND: the branches above did not run */
}

int filled(int x, struct error *err)
{
	int ret = fill(x, err);

	if (ret)
		return -EIO; /* the callee filled it */
	if (fill(x + 1, err) < 0)
		return -EIO;
	if (x) {
		error__set(err, EINVAL, "\"}\" in a string");
		return -EINVAL;
	}
	/* return -EINVAL; in a comment */
	return error__set(err, ENOENT, "x");
}

int filled_handle(struct holder *h)
{
	if (h->x < 0)
		return error__set(&h->error, EINVAL, "x");
	if (fill(h->x, &h->error))
		return -EIO;
	return 0;
}

static int no_error_at_hand(int x)
{
	return x ? -EINVAL : 0;
}
EOF
want=$(grep -n 'FIND' "$TMP/sample.c" | cut -d: -f1 | tr '\n' ' ')
got=$("${CHECK[@]}" "$TMP/sample.c" | sed -n 's/^[^:]*:\([0-9]*\):.*/\1/p' | tr '\n' ' ')
echo "  the sample: bare returns at lines ${got:-none}(want $want)"
[ "$got" = "$want" ] || fail "the checker found lines '$got' in the sample, not '$want'"

cd "$ROOT" || exit 1
files=$(find user -name '*.[ch]' | sort)
out=$("${CHECK[@]}" $files)
rc=$?
echo "  $(echo "$files" | wc -l) files of user/ read"
if [ -n "$out" ] || [ $rc != 0 ]; then
	fail "returns that leave their struct error empty (fill it with error__set, naming the culprit):"
	echo "$out" | sed 's/^/    /'
fi
pass_or_fail
