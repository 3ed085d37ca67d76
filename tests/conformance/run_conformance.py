#!/usr/bin/python3
"""Runs the shared conformance checker (../shared/conformance/check.py) on the query types
impact implements so far, as a ctest test.

    run_conformance.py IMPACT_EXE QUERY [QUERY ...]

Each case file is filtered to the lines whose expectation's query is one of QUERY (plus every
invalid-input line, which must be answered invalid_input whatever its query). Exits 77 (ctest
SKIP) when the shared kit is not beside the checkout.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "conformance"))


def main():
    exe, queries = sys.argv[1], set(sys.argv[2:]) | {"invalid"}
    cases = os.path.join(KIT, "cases")
    if not os.path.isdir(cases):
        print("conformance kit not found at %s: skipped" % KIT)
        return 77
    with tempfile.TemporaryDirectory() as out:
        kept = 0
        for fn in sorted(os.listdir(cases)):
            if not fn.endswith(".jsonl") or fn.endswith(".expect.jsonl"):
                continue
            name = fn[: -len(".jsonl")]
            with open(os.path.join(cases, fn)) as fh:
                lines = fh.read().split("\n")
            if lines and lines[-1] == "":
                lines.pop()
            with open(os.path.join(cases, name + ".expect.jsonl")) as fh:
                exps = [x for x in fh.read().split("\n") if x.strip()]
            keep = [i for i, e in enumerate(exps) if json.loads(e)["query"] in queries]
            if not keep:
                continue
            kept += len(keep)
            with open(os.path.join(out, fn), "w") as fh:
                fh.write("".join(lines[i] + "\n" for i in keep))
            with open(os.path.join(out, name + ".expect.jsonl"), "w") as fh:
                fh.write("".join(exps[i] + "\n" for i in keep))
        print("conformance: %d cases of %s" % (kept, ", ".join(sorted(queries))))
        return subprocess.call(["/usr/bin/python3", os.path.join(KIT, "check.py"), "--impact", exe, "--cases", out])


if __name__ == "__main__":
    sys.exit(main())
