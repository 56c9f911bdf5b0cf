"""robstab on bands of a two-mass chain against brute force and the whole axis, same run.

The chain (``k1`` in [0.5, 1.5], ``c1`` in [-0.001, 0.003], ``k2 = 1``, ``c2 = 2e-4``)
puts a pole at ``jW`` exactly when ``k1 + jW c1 = -a(jW) / b(jW)`` (``b = s^2 + c2 s +
k2``, ``a = b^2 - (c2 s + k2)^2``): the band margin is the smallest scaling of these
values over a dense grid of the band.  Prints the bounds, the brute-force margin, the
critical frequency and the wall time as a ratio to the whole-axis run.
Run: ``python benchmarks/bench_band_robstab.py``.
"""

import numpy as np
from _timing import best_time

import robustmb as rmb

K2, C2, KC, KH, CC, CH = 1.0, 2e-4, 1.0, 0.5, 0.001, 0.002


def chain():
    k1 = rmb.ureal("k1", KC, range=(KC - KH, KC + KH))
    c1 = rmb.ureal("c1", CC, range=(CC - CH, CC + CH))

    def amat(k, c):
        stiff = np.array([[k + K2, -K2], [-K2, K2]])
        damp = np.array([[c + C2, -C2], [-C2, C2]])
        return np.block([[np.zeros((2, 2)), np.eye(2)], [-stiff, -damp]])

    a0 = amat(0.0, 0.0)
    a = a0 + (amat(1.0, 0.0) - a0) * k1 + (amat(0.0, 1.0) - a0) * c1
    return rmb.uss(a, np.array([[0.0], [0.0], [0.0], [1.0]]), np.eye(1, 4), np.zeros((1, 1)))


def brute(band, n=400_001):
    w = np.linspace(band[0], band[1], n)
    w = w[w > 0]
    s = 1j * w
    b = s * s + C2 * s + K2
    q = -(b * b - (C2 * s + K2) ** 2) / b
    need = np.maximum(np.abs(q.real - KC) / KH, np.abs(q.imag / w - CC) / CH)
    return min(float(need.min()), KC / KH) if band[0] == 0 else float(need.min())


def main():
    usys = chain()
    t_whole, whole = best_time(lambda: rmb.robstab(usys, sensitivity=False), 1)
    print(f"whole axis: [{whole.lower:.6g}, {whole.upper:.6g}] brute "
          f"{brute((0.0, 10.0)):.6g}, {t_whole:.2f} s")  # fmt: skip
    for band in ((0.0, 10.0), (0.55, 0.7), (0.6, 0.7), (0.3, 0.5), (1.0, 1.2)):
        t, res = best_time(lambda band=band: rmb.robstab(usys, band=band), 1)
        print(f"band {band}: [{res.lower:.6g}, {res.upper:.6g}] brute {brute(band):.6g}, "
              f"crit {res.critical_frequency:.9g}, time ratio to whole axis "
              f"{t / t_whole:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
