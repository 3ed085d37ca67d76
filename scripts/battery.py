#!/usr/bin/env python3
"""A seeded battery of random and adversarial queries with independent checks (not in CI).

Runs build/battery/tests/fuzz/impact_battery (tests/fuzz/battery.cpp) over queries 0..count-1 of a
seed, in chunks, in one or more worker processes. A worker that hangs (a query past the time
limit: its watchdog exits) or crashes (its signal handler reports the query) is counted and
restarted after that query. Prints the counts of misses, late answers, non-finite numbers, hangs
and crashes, the other classes, and the first failures of each class with a reproducing
`impact query` line; exits 1 when any miss, late answer, non-finite number, hang or crash was seen.

  scripts/battery.py [--count 1000000] [--seed 16] [--jobs 1] [--time-limit 10] [--chunk 20000]

Build first (release flags): cmake --preset battery && cmake --build --preset battery
Reproduce one query: build/battery/tests/fuzz/impact_battery --seed S --start I --count 1 --verbose
"""
import argparse
import collections
import concurrent.futures
import os
import subprocess
import sys
import time

HEADLINE = ["miss", "late", "nonfinite", "hang", "crash"]
OTHERS = ["out_of_range", "phantom", "early", "wrong_distance", "witness_off", "invalid_handling", "max_iterations"]


def run_range(exe, seed, start, count, time_limit, show):
    """Runs queries [start, start+count), restarting past hangs and crashes."""
    counts = collections.Counter()
    breakdown = collections.Counter()
    failures = []  # (class, text)
    slowest = (0.0, None)
    i, end = start, start + count
    while i < end:
        proc = subprocess.run(
            [exe, "--seed", str(seed), "--start", str(i), "--count", str(end - i),
             "--time-limit", str(time_limit), "--show", str(show)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace")
        lines = proc.stdout.splitlines()
        stopped = None
        run_failures = []
        for n, line in enumerate(lines):
            if line.startswith("FAIL "):
                cls = line.split()[1]
                run_failures.append((cls, line + ("\n" + lines[n + 1] if n + 1 < len(lines) else "")))
            elif line.startswith(("HANG ", "CRASH ")):
                kind, index = line.split()[:2]
                stopped = (kind.lower(), int(index))
                failures.append((kind.lower(), line))
            elif line.startswith("COUNTS "):
                for kv in line.split()[1:]:
                    k, v = kv.split("=")
                    if k != "queries":
                        counts[k] += int(v)
            elif line.startswith("BREAKDOWN"):
                for kv in line.split()[1:]:
                    k, v = kv.rsplit("=", 1)
                    breakdown[k] += int(v)
            elif line.startswith("SLOWEST "):
                _, idx, sec = line.split()
                if float(sec) > slowest[0]:
                    slowest = (float(sec), int(idx))
        if stopped is None and proc.returncode == 0:
            failures.extend(run_failures)
            break
        if stopped is None:
            # Died without reporting (killed by a signal the handler could not catch, or the
            # allocator aborted inside the handler): find the query by bisection is costly, so
            # count one crash at the first query of the range and move on.
            stopped = ("crash", i)
            failures.append(("crash", f"CRASH {i} exit {proc.returncode}: {proc.stderr[-400:]}"))
        kind, index = stopped
        # Queries before `index` in this run were checked but their counts were lost with the
        # process: run them again without the failing one (deterministic: same answers).
        # This run's counts and failures died with it (or are partial): the rerun reports them.
        if index > i:
            sub = run_range(exe, seed, i, index - i, time_limit, show)
            counts.update(sub[0])
            breakdown.update(sub[1])
            failures.extend(sub[2])
            if sub[3][0] > slowest[0]:
                slowest = sub[3]
        counts[kind] += 1
        breakdown[f"{kind}:?"] += 1
        i = index + 1
    return counts, breakdown, failures, slowest


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--count", type=int, default=1_000_000, help="queries (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per query before it counts as a hang")
    ap.add_argument("--chunk", type=int, default=20_000, help="queries per worker run")
    ap.add_argument("--show", type=int, default=3, help="failures shown per class and chunk")
    ap.add_argument("--exe", default=os.path.join(os.path.dirname(__file__), "..", "build", "battery", "tests", "fuzz",
                                                  "impact_battery"))
    args = ap.parse_args()
    if not os.access(args.exe, os.X_OK):
        sys.exit(f"battery: {args.exe} not built (cmake --preset battery && cmake --build --preset battery)")

    t0 = time.time()
    counts = collections.Counter()
    breakdown = collections.Counter()
    failures = []
    slowest = (0.0, None)
    chunks = [(s, min(args.chunk, args.count - s)) for s in range(0, args.count, args.chunk)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_range, args.exe, args.seed, s, n, args.time_limit, args.show) for s, n in chunks]
        for f in futures:
            c, b, fl, sl = f.result()
            counts.update(c)
            breakdown.update(b)
            failures.extend(fl)
            if sl[0] > slowest[0]:
                slowest = sl
    elapsed = time.time() - t0

    print(f"battery: seed {args.seed}, {args.count} queries, {elapsed:.0f} s, per-query limit {args.time_limit} s")
    for k in HEADLINE:
        print(f"  {k + ':':18}{counts.get(k, 0)}")
    for k in OTHERS:
        print(f"  {k + ':':18}{counts.get(k, 0)}")
    print(f"  {'ok:':18}{counts.get('ok', 0)}")
    if slowest[1] is not None:
        print(f"  slowest query: {slowest[1]} ({slowest[0]:.3f} s)")
    if breakdown:
        print("by class and family:")
        for k, v in sorted(breakdown.items()):
            print(f"  {k}: {v}")
    shown = collections.Counter()
    if failures:
        print("first failures (reproduce: impact_battery --seed S --start I --count 1 --verbose; the second line is the"
              " query as an `impact query` line):")
        for cls, text in failures:
            if shown[cls] >= args.show:  # max_iterations too: a proven bound, but worth a look
                continue
            shown[cls] += 1
            print(text)
    return 1 if any(counts.get(k, 0) for k in HEADLINE) else 0


if __name__ == "__main__":
    sys.exit(main())
