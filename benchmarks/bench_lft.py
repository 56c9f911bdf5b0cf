"""LFT core benchmark: Delta-reduction counts and timings, vectorised usample.

Prints occurrence counts before/after ``simplify`` for the reduction targets,
and the time of ``usample(1000)`` on a 50-state, 10-parameter model next to a
reference measured in the same run (one ``usubs`` per sample, which closes the
same LFT one sample at a time).

Run: ``python benchmarks/bench_lft.py``
"""

import time

import numpy as np

import robustmb as rmb


def timed(fn, repeat=3):
    best = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def reduction_targets():
    a = rmb.ureal("a", 1.0)
    b = rmb.ureal("b", 2.0, percent=10)
    t = rmb.ureal("t", np.tan(np.pi / 8), range=(np.tan(np.pi / 8), np.tan(3 * np.pi / 8)))
    c = (1 - t * t) / (1 + t * t)
    s = 2 * t / (1 + t * t)
    m = rmb.ureal("m", 2.0, percent=10)
    cc = rmb.ureal("c", 1.0, percent=20)
    k = rmb.ureal("k", 10.0, percent=30)
    return {
        "[a*(a+4), 6*a*a]": (rmb.hstack(a * (a + 4), 6 * a * a), "MATLAB full: a 2"),
        "[[a, b], [b*b, a/b], [1-b, 1+a*b]]": (
            rmb.umat([[a, b], [b * b, a / b], [1 - b, 1 + a * b]]),
            "MATLAB: a 3, b 6",
        ),
        "rotation about x in t = tan(theta/2)": (
            rmb.umat([[1, 0, 0], [0, c, -s], [0, s, c]]),
            "minimum: t 2",
        ),
        "mass-spring-damper (Zhou et al. p.173)": (
            rmb.uss([[0, 1], [-k / m, -cc / m]], [[0], [1 / m]], np.eye(2), np.zeros((2, 1))),
            "minimum: k 1, c 1, m 1",
        ),
    }


def big_model(nx=50, npar=10, seed=0):
    """A 50-state model whose A, B, C depend on 10 parameters (3 scattered entries each)."""
    r = np.random.default_rng(seed)
    pars = [rmb.ureal(f"p{i}", 1.0, percent=20) for i in range(npar)]
    A = (r.standard_normal((nx, nx)) / np.sqrt(nx) - 2 * np.eye(nx)).tolist()
    B = r.standard_normal((nx, 2)).tolist()
    C = r.standard_normal((2, nx)).tolist()
    for i, p in enumerate(pars):
        A[i][i] = -2.0 * p
        A[(i + 7) % nx][i] = 0.5 * p
        C[0][i + 20] = p
    return rmb.uss(A, B, C, np.zeros((2, 2)))


def main():
    print("Delta-reduction (occurrences before -> after simplify, time)")
    for label, (x, ref) in reduction_targets().items():
        t, y = timed(lambda x=x: rmb.simplify(x))
        print(f"  {label:42s} {x.blocks} -> {y.blocks}  ({t * 1e3:.1f} ms; {ref})")
    G = rmb.simplify(big_model())
    print(
        f"\nusample on a {G.nstates}-state model, {len(G.blocks)} parameters, "
        f"{sum(G.blocks.values())} occurrences"
    )
    n = 1000
    t_vec, (samples, values) = timed(lambda: G.usample(n, seed=0))
    n_ref = 100
    t_ref, _ = timed(lambda: [G.usubs(v) for v in values[:n_ref]], repeat=1)
    t_ref_per = t_ref / n_ref
    print(f"  usample({n}):             {t_vec:.3f} s  ({t_vec / n * 1e6:.0f} us per sample)")
    print(f"  reference usubs loop:     {t_ref_per * 1e6:.0f} us per sample")
    print(f"  ratio (reference / vectorised, per sample): {t_ref_per / (t_vec / n):.1f}x")


if __name__ == "__main__":
    main()
