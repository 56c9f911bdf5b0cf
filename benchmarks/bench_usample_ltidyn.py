"""usample of an ultidyn: batched closing against one upper LFT per sample (same values).

Prints the time of ``usample`` on a 1-state ultidyn loop, the time of the
reference (``usubs`` of each sampled value, the former implementation) on the
same values, and their ratio; then the time of 100 000 samples.
"""

import time

import control

import robustmb as rmb
from robustmb.lft.substitution import usubs


def main(n=2000, n_big=100_000):
    D = rmb.ultidyn("D", 1, bound=0.5)
    a = rmb.ureal("a", 1.0, percent=20)
    G = rmb.uss(control.tf([1.0], [1.0, 2.0])) * (1 + D) * a
    t0 = time.perf_counter()
    samples, values = G.usample(n, seed=0)
    t_new = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref = [usubs(G, v) for v in values]
    t_ref = time.perf_counter() - t0
    assert len(ref) == len(samples)
    print(f"usample, {n} samples of a 1x1 ultidyn + ureal loop: {t_new:.3f} s")
    print(f"reference (one upper LFT per sample):           {t_ref:.3f} s")
    print(f"speed-up: {t_ref / t_new:.1f}x")
    t0 = time.perf_counter()
    G.usample(n_big, seed=1)
    t_big = time.perf_counter() - t0
    share = []
    t0 = time.perf_counter()
    for _ in range(2000):
        share.append(control.ss([[-1.0]], [[1.0]], [[1.0]], [[0.0]]))
    t_ss = (time.perf_counter() - t0) / 2000 * n_big
    print(
        f"usample, {n_big} samples: {t_big:.1f} s "
        f"(of which ~{2 * t_ss:.1f} s build the 2 x {n_big} control.StateSpace objects returned)"
    )


if __name__ == "__main__":
    main()
