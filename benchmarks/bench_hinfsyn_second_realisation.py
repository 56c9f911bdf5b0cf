"""Cost of hinfsyn's second realisation when the verification's hinfnorm warns.

When ``hinfnorm`` warns about the closed-loop realisation of an accepted controller,
``hinfsyn`` computes the norm again in the realisation with the slow and fast modes
decoupled (``_second_realisation_norm``) and, when that one is certified without warning,
drops the warning.  This script times ``mixsyn`` on S&P Ex. 2.11 (``W2 = 0.1``, the
docstring example, whose loop triggers it) in the same run with the second realisation
and with it switched off (a stub returning None), and prints the ratio and both norms.

Run: PYTHONPATH=$PWD python benchmarks/bench_hinfsyn_second_realisation.py
"""

import importlib
import warnings

import control
from _timing import median_time

import robustmb as rmb

hs = importlib.import_module("robustmb.synthesis.hinfsyn")


def main():
    G = control.tf([200.0], [0.025, 1.0025, 10.1, 1.0])
    W1 = control.tf([1 / 1.5, 10.0], [1.0, 10.0 * 1e-4])
    real = hs._second_realisation_norm
    out = {}

    def run(key):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = rmb.mixsyn(G, W1, 0.1)
        out[key] = (res.gamma, sum(issubclass(w.category, RuntimeWarning) for w in caught))

    t_on = median_time(lambda: run("on"), 5)
    hs._second_realisation_norm = lambda cl: None
    try:
        t_off = median_time(lambda: run("off"), 5)
    finally:
        hs._second_realisation_norm = real
    print(f"{'':22s} {'time s':>8s} {'gamma':>12s} {'RuntimeWarnings':>16s}")
    for key, t in (("second realisation", t_on), ("switched off", t_off)):
        gamma, nwarn = out["on" if key == "second realisation" else "off"]
        print(f"{key:22s} {t:8.3f} {gamma:12.9f} {nwarn:16d}")
    print(f"ratio {t_on / t_off:.2f}")


if __name__ == "__main__":
    main()
