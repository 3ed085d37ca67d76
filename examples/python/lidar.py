"""A lidar in a room: 180 x 90 rays from one origin through mesh_ray_cast_batch, as a point cloud.

Run with PYTHONPATH=build/release/python. Saves lidar.png (or the path given) when matplotlib is
importable, and prints statistics either way.
"""
import sys
import time

import numpy as np

import impact


def room_with_pillars():
    """A 20 x 12 x 4 room (walls facing in) with three box pillars, as one triangle mesh."""
    vertices, triangles = [], []

    def box(lo, hi, inward):
        base = len(vertices)
        for z in (lo[2], hi[2]):
            for y in (lo[1], hi[1]):
                for x in (lo[0], hi[0]):
                    vertices.append([x, y, z])
        quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
        for a, b, c, d in quads:  # outward, counter-clockwise seen from outside
            tri = [[a, b, c], [a, c, d]]
            for t in tri:
                triangles.append([base + i for i in (t[::-1] if inward else t)])

    box((0, 0, 0), (20, 12, 4), inward=True)
    for x, y in ((5, 4), (11, 8), (15, 3)):
        box((x, y, 0), (x + 1, y + 1, 4), inward=False)
    return impact.TriangleMesh(vertices, triangles, split="sah")


def main(out="lidar.png"):
    mesh = room_with_pillars()
    az, el = np.meshgrid(np.linspace(-np.pi, np.pi, 180, endpoint=False), np.linspace(-0.6, 0.6, 90))
    directions = 30.0 * np.column_stack([(np.cos(el) * np.cos(az)).ravel(), (np.cos(el) * np.sin(az)).ravel(),
                                         np.sin(el).ravel()])
    origin = np.array([2.0, 6.0, 1.5])
    start = time.perf_counter()
    hits = impact.mesh_ray_cast_batch(mesh, origin, directions)
    seconds = time.perf_counter() - start
    hit = hits["status"] == int(impact.Status.hit)
    points = hits["point"][hit]
    ranges = np.linalg.norm(points - origin, axis=1)
    print(f"{len(directions)} rays, {hit.sum()} hits in {seconds * 1e3:.2f} ms; "
          f"range {ranges.min():.2f}..{ranges.max():.2f}, {len(np.unique(hits['triangle'][hit]))} triangles seen")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    sc = ax.scatter(points[:, 0], points[:, 1], c=points[:, 2], s=1, cmap="viridis")
    ax.plot(*origin[:2], "r*", markersize=12)
    ax.set_aspect("equal")
    ax.set_title("lidar point cloud (colour: height)")
    fig.colorbar(sc, ax=ax)
    fig.savefig(out, dpi=100)
    print(f"saved {out}")


if __name__ == "__main__":
    main(*sys.argv[1:])
