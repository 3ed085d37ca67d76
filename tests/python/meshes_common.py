"""Scenes shared by the mesh, level and world tests: a bumpy terrain mesh and the protocol's hall."""
import numpy as np


def terrain(rng, n=8, size=10.0, bump=1.0):
    """An n x n grid of squares over [0, size]^2 at random heights (2 n^2 triangles, fronts up)."""
    xs = np.linspace(0.0, size, n + 1)
    vertices = [[float(x), float(y), float(rng.uniform(0, bump))] for y in xs for x in xs]
    triangles = []
    for j in range(n):
        for i in range(n):
            a, b = j * (n + 1) + i, j * (n + 1) + i + 1
            c, d = a + n + 1, b + n + 1
            triangles += [[a, b, d], [a, d, c]]
    return vertices, triangles


# The two-room level of docs/protocol.md (define_level): a floor in room 0, a wall at x = 18 in room 1.
HALL_ROOMS = [
    {"mesh": {"vertices": [[0, 0, 0], [10, 0, 0], [10, 10, 0], [0, 10, 0]], "triangles": [[0, 1, 2], [0, 2, 3]]},
     "cell": {"min": [0, 0, 0], "max": [10, 10, 10]}},
    {"mesh": {"vertices": [[18, 0, 0], [18, 10, 0], [18, 10, 10], [18, 0, 10]], "triangles": [[0, 2, 1], [0, 3, 2]]},
     "cell": {"min": [10, 0, 0], "max": [20, 10, 10]}},
]
HALL_PORTALS = [{"rooms": [0, 1], "corners": [[10, 0, 0], [10, 10, 0], [10, 10, 10], [10, 0, 10]]}]


def hall_level(impact):
    rooms = [impact.Room(r["mesh"]["vertices"], r["mesh"]["triangles"], r["cell"]["min"], r["cell"]["max"])
             for r in HALL_ROOMS]
    portals = [impact.Portal(p["rooms"], p["corners"]) for p in HALL_PORTALS]
    return impact.Level(rooms, portals)
