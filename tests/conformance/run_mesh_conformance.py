#!/usr/bin/python3
"""Runs the shared mesh conformance checker (../shared/conformance/mesh/check_mesh.py) on every
mesh case file, as a ctest test.

    run_mesh_conformance.py IMPACT_EXE

Exits 77 (ctest SKIP) when the shared kit is not beside the checkout.
"""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
KIT = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared", "conformance", "mesh"))


def main():
    exe = sys.argv[1]
    cases = os.path.join(KIT, "cases")
    if not os.path.isdir(cases):
        print("mesh conformance kit not found at %s: skipped" % KIT)
        return 77
    return subprocess.call(["/usr/bin/python3", os.path.join(KIT, "check_mesh.py"), "--impact", exe, "--cases", cases])


if __name__ == "__main__":
    sys.exit(main())
