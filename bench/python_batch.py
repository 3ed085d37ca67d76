#!/usr/bin/env python3
"""Python batch against the C++ batch (issue 19): a million rays on a height field of a million
triangles, through the module's mesh_ray_cast_batch and through impact::mesh_ray_cast_batch called
from C++ (impact_batch_time) on the same mesh and rays, float and double, 1 and 2 threads.

  PYTHONPATH=build/release/python /usr/bin/python3 bench/python_batch.py [--build build/release] [--repeats 5]

Prints best-of-N wall times and Python's time over C++'s (the target: within 10%).
"""
import argparse
import pathlib
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
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--rays", type=int, default=1_000_000)
    args = ap.parse_args()
    exe = pathlib.Path(args.build) / "bench" / "impact_batch_time"
    vertices, triangles = height_field(708, 100.0, 1)
    origin, direction = rays(args.rays, 100.0, 2)
    print(f"{len(triangles)} triangles, {len(origin)} rays, best of {args.repeats}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, a in [("vertices.f64", vertices), ("triangles.u32", triangles), ("origin.f64", origin),
                        ("direction.f64", direction)]:
            np.ascontiguousarray(a).tofile(pathlib.Path(tmp) / name)
        for precision, dtype in [("float", np.float32), ("double", np.float64)]:
            mesh = impact.TriangleMesh(vertices, triangles, precision=precision)
            o, d = origin.astype(dtype), direction.astype(dtype)
            for threads in (1, 2):
                best = float("inf")
                for _ in range(args.repeats):
                    t0 = time.perf_counter()
                    r = impact.mesh_ray_cast_batch(mesh, o, d, threads=threads)
                    best = min(best, time.perf_counter() - t0)
                hits = int(np.count_nonzero(r["status"] == int(impact.Status.hit)))
                out = subprocess.run([str(exe), tmp, precision, str(threads), str(args.repeats)], check=True,
                                     capture_output=True, text=True).stdout.split()
                cpp, cpp_hits = float(out[0]), int(out[1])
                print(f"mesh_ray_batch/height_field_1m/{precision}/threads:{threads}: python {best * 1e3:.1f} ms, "
                      f"C++ {cpp * 1e3:.1f} ms, python/C++ {best / cpp:.3f} (hits {hits} / {cpp_hits})")


if __name__ == "__main__":
    main()
