#!/usr/bin/python3
"""Runs the shared world conformance checker (../shared/conformance/world/check_world.py) on every
world case file, as a ctest test.

    run_world_conformance.py IMPACT_EXE

Exits 77 (ctest SKIP) when the shared kit is not beside the checkout.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "conformance", "world"))


def main():
    exe = sys.argv[1]
    cases = os.path.join(KIT, "cases")
    if not os.path.isdir(cases):
        print("world conformance kit not found at %s: skipped" % KIT)
        return 77
    return subprocess.call(["/usr/bin/python3", os.path.join(KIT, "check_world.py"), "--impact", exe, "--cases", cases])


if __name__ == "__main__":
    sys.exit(main())
