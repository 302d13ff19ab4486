#!/usr/bin/env python3
"""Finds `return -E...;` that leave a struct error empty.

A function that has a struct error at hand, as a parameter
(`struct error *err`) or through a handle whose struct holds one (a
`struct sink *s` holds `s->error`), must fill it before it fails: the
command prints that message, and an empty one is a refusal that says
nothing. This prints FILE:LINE: FUNCTION: return -EXXX for each return of a
bare errno constant in such a function that no call which could fill the
error precedes:

- a call of error__set or error__append, or any call that is handed the
  error or the handle (the callee fills it), in the governing `if`
  condition of the return or of its block, or
- such a call in an earlier statement of the same block, back to the
  nearest conditional or nested block (whose own filling may not have
  run).

It reads C with regular expressions and brace counting, not a compiler:
comments, strings and character constants are blanked first, and
preprocessor lines are dropped. Usage: bare_errno.py FILE... (exit 1 when
it prints anything).
"""
import re
import sys

FILLERS = re.compile(r"\berror__(set|append)\s*\(")
RETURN = re.compile(r"\breturn\s+-\s*(E[A-Z0-9]+)\s*;")
CONDITIONAL = re.compile(r"^\s*(?:\}\s*)?(if|else|for|while|do|switch|case|default)\b")
MARK = "\x01"  # stands for a nested block removed from a block's text


def blank(src):
    """Comments, strings, char constants and preprocessor lines become
    spaces; newlines stay, so offsets keep their line numbers."""
    out = []
    i, n = 0, len(src)
    line_start = True
    while i < n:
        c = src[i]
        if line_start and c == "#":
            # A directive, with its continuation lines.
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    out.append(" \n")
                    i += 2
                    continue
                out.append(" ")
                i += 1
            continue
        if c == "\n":
            line_start = True
            out.append(c)
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("".join(ch if ch == "\n" else " " for ch in src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + "".join(ch if ch == "\n" else " " for ch in src[i + 1:j - 1]) + c)
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def error_holders(texts):
    """Struct tags whose members include a struct error or a pointer to
    one, with that member's name."""
    holders = {}
    for text in texts:
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{", text):
            depth, j = 1, m.end()
            while j < len(text) and depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            body = text[m.end():j - 1]
            f = re.search(r"\bstruct\s+error\s*(\*?)\s*(\w+)\s*;", body)
            if f:
                holders[m.group(1)] = f.group(2)
    return holders


def functions(text):
    """(name, parameter list, body start, body end) of each function
    definition: a top-level `{` whose header ends in a parameter list."""
    depth, i, last = 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == "{":
            if depth == 0:
                header = text[last:i]
                m = re.search(r"(\w+)\s*\(([^;{}]*)\)\s*(?:__attribute__\s*\(\(.*\)\)\s*)?$", header, re.S)
                start = i
                d, j = 1, i + 1
                while j < len(text) and d:
                    d += {"{": 1, "}": -1}.get(text[j], 0)
                    j += 1
                if m and m.group(1) not in ("if", "for", "while", "switch"):
                    yield m.group(1), m.group(2), start, j
                i, last = j, j
                continue
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == ";" and depth == 0:
            last = i + 1
        i += 1


def error_names(params, holders):
    """Expressions that name the error in calls: the parameter itself, or
    a handle parameter (callees take the handle)."""
    names = []
    for p in params.split(","):
        m = re.search(r"\bstruct\s+error\s*\*\s*(\w+)\s*$", p.strip())
        if m:
            names.append(m.group(1))
            continue
        m = re.search(r"\bstruct\s+(\w+)\s*\*\s*(\w+)\s*$", p.strip())
        if m and m.group(1) in holders:
            names.append(m.group(2) + r"(?:\s*->\s*" + holders[m.group(1)] + ")?")
    return names


def strip_nested(text):
    """text with every balanced {...} replaced by MARK (a statement
    boundary that may have filled the error, or not)."""
    out, depth = [], 0
    for c in text:
        if c == "{":
            if depth == 0:
                out.append(";" + MARK + ";")
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            out.append(c)
    return "".join(out)


def fills(stmt, names):
    if FILLERS.search(stmt):
        return True
    for name in names:
        # Handed to a call: `f(..., err)`, `f(&s->error)`, `f(p, ...)`.
        if re.search(r"[(,]\s*&?\s*" + name + r"\s*[,)]", stmt):
            return True
    return False


def statements(text):
    """Split at `;` outside parentheses."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        if c == ";" and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur))
    return parts


def bare_returns(text, body_start, body_end, names):
    for m in RETURN.finditer(text, body_start, body_end):
        pos = m.start()
        # The innermost block holding the return.
        depth, b = 0, pos
        while b > body_start:
            b -= 1
            if text[b] == "}":
                depth += 1
            elif text[b] == "{":
                if depth == 0:
                    break
                depth -= 1
        # The block's header: from the statement boundary before it.
        h = b
        while h > body_start and text[h - 1] not in ";{}":
            h -= 1
        header = text[h:b]
        stmts = statements(strip_nested(text[b + 1:pos]))
        own = stmts.pop()  # the return's own statement: `if (cond) `
        ok = fills(own, names) or (bool(CONDITIONAL.match(header)) and fills(header, names))
        for s in reversed(stmts):
            if ok or MARK in s or CONDITIONAL.match(s):
                break
            ok = fills(s, names)
        if not ok:
            yield pos, m.group(1)


def main(paths):
    texts = {}
    for p in paths:
        with open(p, encoding="utf-8", errors="replace") as f:
            texts[p] = blank(f.read())
    holders = error_holders(texts.values())
    found = 0
    for p in paths:
        if not p.endswith(".c"):
            continue
        text = texts[p]
        for name, params, start, end in functions(text):
            names = error_names(params, holders)
            if not names:
                continue
            for pos, errno in bare_returns(text, start + 1, end - 1, names):
                line = text.count("\n", 0, pos) + 1
                print(f"{p}:{line}: {name}: return -{errno} with its struct error empty")
                found += 1
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
