#!/usr/bin/python3
"""Checks the examples of docs/protocol.md against the tool, so the page cannot drift.

    check_protocol_examples.py IMPACT_EXE [PROTOCOL_MD] [--print]

The page's examples are fenced code blocks whose info string is `json request` or `json answer`:

    ```json request
    {"id": 1, "query": "distance", ...}
    ```
    ```json answer
    {"id": 1, "status": "separated", ...}
    ```

Every request block is followed by an answer block with as many lines (one JSON object per
non-empty line). An answer block may name fields whose values vary from run to run after
`ignore=` (comma-separated, e.g. `json answer ignore=rebuild_seconds`): such a field must be
present, with a value of the same JSON kind, wherever it appears, but its value is not compared.

All the request lines of the page go to one `impact query` process, in page order (a mesh
defined by one example is there for the next), started in the repository's root (the parent
of the page's folder), so the page's relative paths resolve the same way for a reader working
there. Each answer line must equal the expected one: the same keys, the same strings, booleans
and nulls, arrays of the same length, and numbers within 1e-9 relative of each other (numbers
below 1e-12 in magnitude count as 0). `--print` writes the tool's answers block by block
instead of comparing, for writing a new example.

Exit status: 0 when every answer matches, 1 when one does not, 2 when the page or the tool
cannot be used.
"""
import json
import math
import os
import subprocess
import sys

REL = 1e-9
ZERO = 1e-12


def blocks(path):
    """The page's example blocks: (kind, options, first line number, lines)."""
    out = []
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            words = line[3:].split()
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            if j == len(lines):
                raise ValueError("%s:%d: unclosed code block" % (path, i + 1))
            if len(words) >= 2 and words[0] == "json" and words[1] in ("request", "answer"):
                options = {}
                for w in words[2:]:
                    key, _, value = w.partition("=")
                    options[key] = value
                body = [(k + 1, x) for k, x in enumerate(lines[i + 1 : j], start=i + 1) if x.strip()]
                out.append((words[1], options, i + 1, body))
            i = j + 1
        else:
            i += 1
    return out


def pairs(path):
    """[(request lines, answer lines, ignored fields)], each line (line number, text)."""
    found = blocks(path)
    result = []
    k = 0
    while k < len(found):
        kind, _, at, body = found[k]
        if kind != "request":
            raise ValueError("%s:%d: an answer block with no request block before it" % (path, at))
        if k + 1 == len(found) or found[k + 1][0] != "answer":
            raise ValueError("%s:%d: a request block not followed by an answer block" % (path, at))
        _, options, answer_at, answer = found[k + 1]
        if len(body) != len(answer):
            raise ValueError("%s:%d: %d request lines but %d answer lines (line %d)"
                             % (path, at, len(body), len(answer), answer_at))
        ignore = set(x for x in options.get("ignore", "").split(",") if x)
        result.append((body, answer, ignore))
        k += 2
    return result


def kind(v):
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "null"
    return type(v).__name__


def differences(expected, actual, ignore, where=""):
    """The places where `actual` differs from `expected`, as readable strings."""
    here = where or "the answer"
    if kind(expected) != kind(actual):
        return ["%s: expected %s, got %s" % (here, json.dumps(expected), json.dumps(actual))]
    if isinstance(expected, dict):
        out = []
        for key in sorted(set(expected) | set(actual)):
            at = key if not where else where + "." + key
            if key not in actual:
                out.append("%s: missing" % at)
            elif key not in expected:
                out.append("%s: not expected (got %s)" % (at, json.dumps(actual[key])))
            elif key in ignore:
                if kind(expected[key]) != kind(actual[key]):
                    out.append("%s: expected a %s, got %s" % (at, kind(expected[key]), json.dumps(actual[key])))
            else:
                out += differences(expected[key], actual[key], ignore, at)
        return out
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return ["%s: expected %d values, got %d" % (here, len(expected), len(actual))]
        out = []
        for n, (e, a) in enumerate(zip(expected, actual)):
            out += differences(e, a, ignore, "%s.%d" % (where, n) if where else str(n))
        return out
    if kind(expected) == "number":
        e, a = float(expected), float(actual)
        if not (math.isfinite(e) and math.isfinite(a)):
            return [] if e == a else ["%s: expected %r, got %r" % (here, expected, actual)]
        e0 = 0.0 if abs(e) < ZERO else e
        a0 = 0.0 if abs(a) < ZERO else a
        if abs(e0 - a0) <= REL * max(abs(e0), abs(a0)):
            return []
        return ["%s: expected %r, got %r" % (here, expected, actual)]
    return [] if expected == actual else ["%s: expected %s, got %s" % (here, json.dumps(expected), json.dumps(actual))]


def main(argv):
    args = [a for a in argv[1:] if a != "--print"]
    show = "--print" in argv[1:]
    if not args or len(args) > 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    exe = os.path.abspath(args[0])
    page = os.path.abspath(args[1]) if len(args) == 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "protocol.md")
    root = os.path.dirname(os.path.dirname(page))
    try:
        examples = pairs(page)
    except (OSError, ValueError) as e:
        print("cannot read the examples: %s" % e, file=sys.stderr)
        return 2
    if not examples:
        print("%s holds no examples" % page, file=sys.stderr)
        return 2
    requests = [text for body, _, _ in examples for _, text in body]
    try:
        run = subprocess.run([exe, "query"], input="\n".join(requests) + "\n", capture_output=True, text=True,
                             cwd=root, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        print("cannot run %s: %s" % (exe, e), file=sys.stderr)
        return 2
    answers = run.stdout.split("\n")
    if answers and answers[-1] == "":
        answers.pop()
    if run.returncode != 0 or len(answers) != len(requests):
        print("%s query exited %d with %d answers for %d requests\n%s"
              % (exe, run.returncode, len(answers), len(requests), run.stderr), file=sys.stderr)
        return 2
    if show:
        n = 0
        for body, answer, _ in examples:
            print("## request block at line %d" % (body[0][0] - 1))
            for _ in body:
                print(answers[n])
                n += 1
        return 0
    failures = 0
    n = 0
    for body, answer, ignore in examples:
        for (request_line, request), (answer_line, expected_text) in zip(body, answer):
            actual_text = answers[n]
            n += 1
            try:
                expected = json.loads(expected_text)
            except ValueError as e:
                print("%s:%d: the expected answer is not JSON: %s" % (page, answer_line, e))
                failures += 1
                continue
            found = differences(expected, json.loads(actual_text), ignore)
            if found:
                failures += 1
                print("%s:%d: the answer to the request of line %d differs:" % (page, answer_line, request_line))
                for d in found:
                    print("    " + d)
                print("    the tool answered: " + actual_text)
    print("%d of %d examples of %s match the tool" % (len(requests) - failures, len(requests), os.path.relpath(page, root)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
