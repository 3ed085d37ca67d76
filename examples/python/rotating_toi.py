"""A spinning blade and a ball: time_of_impact_batch over angular speeds from 0 to 8 turns a step.

Run with PYTHONPATH=build/release/python. The ball moves past the blade's hub; the faster the blade
turns, the earlier it strikes. Every answer is never late (the library's contract), so the times
fall as the speed rises until the blade meets the ball where it starts.
"""
import numpy as np

import impact


def main():
    blade = impact.Box((2.0, 0.05, 0.2))  # a propeller blade about z through its centre
    ball = impact.Sphere(0.25)
    speeds = np.linspace(0.0, 8 * 2 * np.pi, 33)
    angular_a = np.column_stack([np.zeros_like(speeds), np.zeros_like(speeds), speeds])
    start_b = np.array([1.2, 1.5, 0.0])  # beside the blade, moving across its disc
    out = impact.time_of_impact_batch(blade, ball, None, None, None, angular_a, start_b, None,
                                      np.array([0.0, -3.0, 0.0]), None)
    for w, s, t in zip(speeds, out["status"], out["toi"]):
        status = impact.Status(s).name
        print(f"{w / (2 * np.pi):5.2f} turns/step: {status:22s} toi {t:.6f}")
    hit = out["status"] == int(impact.Status.hit)
    print(f"{hit.sum()} of {len(speeds)} speeds hit")


if __name__ == "__main__":
    main()
