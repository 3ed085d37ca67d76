#!/usr/bin/env python3
"""Python batch against the C++ batch (issue 19): a million rays on a height field of a million
triangles, through the module's mesh_ray_cast_batch and through impact::mesh_ray_cast_batch called
from C++ (impact_batch_time) on the same mesh and rays, float and double, 1 and 2 threads.

  PYTHONPATH=build/release/python /usr/bin/python3 bench/python_batch.py [--build build/release] [--repeats 9]

The C++ side is a process that stays up and answers one timed call per request, so the two calls
alternate, C++ then Python, `repeats` times: both see the same machine at the same minute. Prints
the median and best wall times of each and Python's over C++'s: of the medians, of the bests, and
the median of each Python call over the C++ call just before it (the target: within 10%).
"""
import argparse
import pathlib
import statistics
import subprocess
import tempfile
import time

import numpy as np

import impact


def height_field(n, size, seed):
    rng = np.random.default_rng(seed)
    xs = np.linspace(-size, size, n + 1)
    x, y = np.meshgrid(xs, xs, indexing="ij")
    z = rng.uniform(-1, 1, x.shape) * 0.5 + np.sin(x / 7) * 3 + np.cos(y / 5) * 2
    vertices = np.stack([x.ravel(), y.ravel(), z.ravel()], axis=1)
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    a = (i * (n + 1) + j).ravel()
    b, c, d = a + n + 1, a + 1, a + n + 2
    triangles = np.concatenate([np.stack([a, b, c], 1), np.stack([c, b, d], 1)]).astype(np.uint32)
    return vertices, triangles


def rays(count, size, seed):
    rng = np.random.default_rng(seed)
    o = np.stack([rng.uniform(-0.95, 0.95, count) * size, rng.uniform(-0.95, 0.95, count) * size,
                  rng.uniform(5, 30, count)], axis=1)
    to = np.stack([o[:, 0] * 0.8 + rng.uniform(-0.19, 0.19, count) * size,
                   o[:, 1] * 0.8 + rng.uniform(-0.19, 0.19, count) * size, np.full(count, -10.0)], axis=1)
    return o, to - o


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--rays", type=int, default=1_000_000)
    args = ap.parse_args()
    exe = pathlib.Path(args.build) / "bench" / "impact_batch_time"
    vertices, triangles = height_field(708, 100.0, 1)
    origin, direction = rays(args.rays, 100.0, 2)
    print(f"{len(triangles)} triangles, {len(origin)} rays, {args.repeats} alternations")
    with tempfile.TemporaryDirectory() as tmp:
        for name, a in [("vertices.f64", vertices), ("triangles.u32", triangles), ("origin.f64", origin),
                        ("direction.f64", direction)]:
            np.ascontiguousarray(a).tofile(pathlib.Path(tmp) / name)
        for precision, dtype in [("float", np.float32), ("double", np.float64)]:
            mesh = impact.TriangleMesh(vertices, triangles, precision=precision)
            o, d = origin.astype(dtype), direction.astype(dtype)
            server = subprocess.Popen([str(exe), tmp, precision], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      text=True)
            try:
                for threads in (1, 2):
                    py_times, cpp_times = [], []
                    for _ in range(args.repeats):
                        server.stdin.write(f"{threads}\n")
                        server.stdin.flush()
                        cpp, cpp_hits = server.stdout.readline().split()
                        cpp_times.append(float(cpp))
                        t0 = time.perf_counter()
                        r = impact.mesh_ray_cast_batch(mesh, o, d, threads=threads)
                        py_times.append(time.perf_counter() - t0)
                    hits = int(np.count_nonzero(r["status"] == int(impact.Status.hit)))
                    py_med, cpp_med = statistics.median(py_times), statistics.median(cpp_times)
                    # Each Python call over the C++ call just before it: the two a second apart.
                    paired = statistics.median(p / c for p, c in zip(py_times, cpp_times))
                    print(f"mesh_ray_batch/height_field_1m/{precision}/threads:{threads}: "
                          f"python {py_med * 1e3:.1f} ms (best {min(py_times) * 1e3:.1f}), "
                          f"C++ {cpp_med * 1e3:.1f} ms (best {min(cpp_times) * 1e3:.1f}), "
                          f"python/C++ median {py_med / cpp_med:.3f}, best {min(py_times) / min(cpp_times):.3f}, "
                          f"median of paired ratios {paired:.3f} "
                          f"(hits {hits} / {cpp_hits})", flush=True)
            finally:
                server.stdin.close()
                server.wait()

if __name__ == "__main__":
    main()
