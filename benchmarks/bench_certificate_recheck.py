"""Cost of re-proving a given wcgain certificate on a report channel, against wcgain itself.

The report re-checks a certificate's stored mu evidence (frequencies and D,G scalings) on
the channel's own LFT (:func:`robustmb.report.worst_case.reverified_upper`); this prints,
in the same run, the time of that check and of the ``wcgain`` call it replaces, and the
bound used when a branch and bound lowered the upper bound below the sweep's level
(with a dense-grid brute-force peak for reference).

Run: ``python benchmarks/bench_certificate_recheck.py``
"""

import control
import numpy as np
from _timing import best_time

import robustmb as rmb
from robustmb.report.worst_case import reverified_upper

S = control.tf("s")


def oscillator(lo, hi):
    c = rmb.ureal("c", 1.0, range=(lo, hi))
    return rmb.uss(1 / (S * S + c * S + 1))


def two_parameters():
    a = rmb.ureal("a", 1.0, range=(0.2, 1.8))
    b = rmb.ureal("b", 1.0, range=(0.3, 1.7))
    return rmb.uss((S + b) / (S * S + a * b * S + a * a))


def product(c):
    d1 = rmb.ureal("d1", 0.0, range=(-1, 1))
    d2 = rmb.ureal("d2", 0.0, range=(-1, 1))
    return rmb.feedback(rmb.uss(control.ss(1 / (S * S + S + 1))), -(c * d1 * d2))


def brute_product(c):
    w = np.logspace(-2, 2, 4001)
    t = np.linspace(-1, 1, 41)
    return max(np.max(np.abs(1 / ((1j * w) ** 2 + 1j * w + 1 - c * x * y))) for x in t for y in t)


def main():
    print("case                      wcgain s  re-check s  ratio   upper     re-proved")
    cases = [
        ("oscillator c in [.5,1.5]", oscillator(0.5, 1.5), None),
        ("a, b (a^2, a b terms)", two_parameters(), None),
        ("product c = 0.3", product(0.3), 0.3),
        ("product c = 0.6", product(0.6), 0.6),
    ]
    for name, G, c in cases:
        t_w, res = best_time(lambda G=G: rmb.wcgain(G), 1)
        t_c, (level, _) = best_time(lambda G=G, res=res: reverified_upper(res, G), 1)
        line = (
            f"{name:25s} {t_w:8.2f}  {t_c:10.2f}  {t_c / t_w:5.2f}  {res.upper:8.5g}  {level:8.5g}"
        )
        if c is not None:
            line += f"  (brute-force peak {brute_product(c):.5g})"
        print(line)
    stale = rmb.wcgain(oscillator(0.8, 1.5))
    level, why = reverified_upper(stale, oscillator(0.5, 1.5))
    print(
        f"stale certificate over c in [0.8, 1.5] (upper {stale.upper:.5g}) on c in [0.5, 1.5]: "
        f"re-proved {level}; {why}"
    )


if __name__ == "__main__":
    main()
