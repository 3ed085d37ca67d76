"""The distance from a rounded box to a capsule placed at every point of a grid (distance_batch).

Run with PYTHONPATH=build/release/python. Prints the field as characters and checks it: a
separated pair's points differ by distance * normal.
"""
import numpy as np

import impact


def main():
    a = impact.Minkowski(impact.Box((1.0, 0.5, 0.5)), impact.Sphere(0.25))
    b = impact.Capsule(0.3, 0.6)
    xs = np.linspace(-4, 4, 61)
    ys = np.linspace(-2.5, 2.5, 25)
    gx, gy = np.meshgrid(xs, ys)
    positions = np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])
    turned = np.array([np.cos(np.pi / 4), np.sin(np.pi / 4), 0.0, 0.0])  # capsule axis along y
    field = impact.distance_batch(a, b, None, None, positions, turned)
    d = field["distance"].reshape(gx.shape)
    sep = field["status"] == int(impact.Status.separated)
    gap = field["point_b"][sep] - field["point_a"][sep]
    assert np.allclose(gap, field["distance"][sep, None] * field["normal"][sep], atol=1e-9)
    shades = " .:-=+*#%@"
    for row in d[::-1]:
        print("".join("O" if v == 0 else shades[min(int(v * 3), len(shades) - 1)] for v in row))
    print(f"{d.size} distances, {np.sum(~sep)} touching, max {d.max():.3f}")


if __name__ == "__main__":
    main()
