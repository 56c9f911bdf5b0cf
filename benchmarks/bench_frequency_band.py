"""robstab / wcgain on a frequency band against the whole-axis analysis, same run.

Prints, for a damped pair ``1 / (s^2 + c s + w^2)`` (``c`` in [0, 2], ``w`` in [0.8, 1.2])
and a lightly damped mode ``wn^2 / (s^2 + 0.1 wn s + wn^2)`` (``wn`` in [0.8, 1.2]), the
bounds on bands inside and outside the critical frequency, the closed-form value, and
the wall time as a ratio to the whole-axis run of the same function.
Run: ``python benchmarks/bench_frequency_band.py``.
"""

import control
import numpy as np
from _timing import best_time

import robustmb as rmb

S = control.tf("s")


def pair():
    c = rmb.ureal("c", 1.0, range=(0.0, 2.0))
    w = rmb.ureal("w", 1.0, range=(0.8, 1.2))
    return 1 / (S * S + c * S + w * w)


def mode():
    wn = rmb.ureal("wn", 1.0, range=(0.8, 1.2))
    return wn * wn / (S * S + 0.1 * wn * S + wn * wn)


def mode_sup(band, zeta=0.05):
    r = np.clip(np.sqrt(1 - 2 * zeta**2), band[0] / 1.2, band[1] / 0.8)
    return 1 / np.sqrt((1 - r * r) ** 2 + (2 * zeta * r) ** 2)


def main():
    t_whole, whole = best_time(lambda: rmb.robstab(pair(), sensitivity=False), 1)
    print(f"robstab pair, whole axis: [{whole.lower:.6g}, {whole.upper:.6g}] exact 1, "
          f"{t_whole:.2f} s")  # fmt: skip
    for band, exact in (((0.5, 2.0), 1.0), ((2.0, 10.0), 5.0), ((1.5, 3.0), 2.5)):
        t, res = best_time(lambda band=band: rmb.robstab(pair(), band=band), 1)
        print(f"robstab pair, band {band}: [{res.lower:.6g}, {res.upper:.6g}] exact {exact}, "
              f"time ratio to whole axis {t / t_whole:.2f}")  # fmt: skip
    t_whole, whole = best_time(lambda: rmb.wcgain(mode(), max_boxes=0), 1)
    print(f"wcgain mode, whole axis: [{whole.lower:.8g}, {whole.upper:.8g}] exact "
          f"{mode_sup((0.0, np.inf)):.8g}, {t_whole:.2f} s")  # fmt: skip
    for band in ((0.9, 1.1), (0.3, 0.7), (1.3, 3.0)):
        t, res = best_time(lambda band=band: rmb.wcgain(mode(), band=band), 1)
        print(f"wcgain mode, band {band}: [{res.lower:.8g}, {res.upper:.8g}] exact "
              f"{mode_sup(band):.8g}, time ratio to whole axis {t / t_whole:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
