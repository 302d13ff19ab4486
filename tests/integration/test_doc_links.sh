#!/usr/bin/env bash
# bpmc-test: static
# The manual is split over README.md, CHANGELOG.md, CONTRIBUTING.md and
# docs/*.md: every relative link between them names a file that exists
# and, after '#', a heading of that file (GitHub's anchors: lower case,
# punctuation dropped, spaces to '-'), so that a section moved or renamed
# leaves no dead link. The README stays a first screen: 250 lines at most.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"
cd "$ROOT" || exit 1

lines=$(wc -l <README.md)
echo "  README.md: $lines lines"
[ "$lines" -le 250 ] || fail "README.md has $lines lines: the manual belongs in docs/"

out=$(python3 - README.md CHANGELOG.md CONTRIBUTING.md docs/*.md <<'EOF'
import os, re, sys

def anchors(path):
    found, fence = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fence = not fence
        m = not fence and re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m:
            a = re.sub(r"[^\w\- ]", "", m.group(1).lower()).replace(" ", "-")
            n, base = 0, a
            while a in found:  # GitHub numbers repeated headings
                n += 1
                a = f"{base}-{n}"
            found.add(a)
    return found

links = bad = 0
for page in sys.argv[1:]:
    if not os.path.exists(page):
        continue
    text = re.sub(r"```.*?```", "", open(page, encoding="utf-8").read(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # https:, mailto:
        links += 1
        path, _, anchor = target.partition("#")
        dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(dest):
            print(f"{page}: link to {target}: no file {dest}")
            bad += 1
        elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
            print(f"{page}: link to {target}: {dest} has no heading '#{anchor}'")
            bad += 1
print(f"  {links} links checked")
sys.exit(1 if bad else 0)
EOF
) || fail "dead links:"
echo "$out" | sed 's/^  //; s/^/  /'
pass_or_fail
