"""Cost of sweeping ``control.StateSpace`` families with a store.

Times, in the same run, (1) the structural item digest of sampled ``StateSpace`` models
against the digest of the same matrices given as ``(A, B, C, D, dt)`` tuples, (2) the
transport pickle of a ``StateSpace`` result against the plain pickle of its matrices, and
(3) a stored in-process sweep whose function returns a ``StateSpace`` against one that
returns the matrices.  Prints the ratios.

Run: ``python benchmarks/bench_sweep_statespace.py``
"""

import os
import pickle
import tempfile

import control
import numpy as np
from _timing import best_time

import robustmb as rmb
from robustmb.analysis.sweep import _digest, _dumps


def best(f, repeat=5):
    return best_time(f, repeat)[0]


def plant(k, c):
    return control.ss([[0.0, 1.0], [-k, -c]], [[0.0], [1.0]], [[1.0, 0.0]], [[0.0]])


def as_statespace(item):
    return control.feedback(plant(*item), 1)


def as_tuple(item):
    G = control.feedback(plant(*item), 1)
    return (G.A, G.B, G.C, G.D, G.dt)


def main():
    n = 400
    rng = np.random.default_rng(0)
    items = [(float(k), float(c)) for k, c in rng.uniform([1.0, 0.05], [4.0, 0.8], (n, 2))]
    models = [plant(*it) for it in items]
    tuples = [(G.A, G.B, G.C, G.D, G.dt) for G in models]
    a = best(lambda: [_digest(G) for G in models])
    b = best(lambda: [_digest(t) for t in tuples])
    print(
        f"digest of {n} StateSpace vs tuples: {a * 1e3:7.2f} ms vs {b * 1e3:7.2f} ms  "
        f"ratio {a / b:5.2f}"
    )
    a = best(lambda: [_dumps(G) for G in models])
    b = best(lambda: [pickle.dumps(t, protocol=pickle.HIGHEST_PROTOCOL) for t in tuples])
    c = best(lambda: [pickle.loads(_dumps(G)) for G in models])
    print(
        f"pickle of {n} StateSpace vs tuples:  {a * 1e3:7.2f} ms vs {b * 1e3:7.2f} ms  "
        f"ratio {a / b:5.2f}; with the rebuild {c * 1e3:7.2f} ms"
    )
    with tempfile.TemporaryDirectory() as d:
        times = {}
        for fn in (as_statespace, as_tuple):

            def run(fn=fn):
                path = os.path.join(d, f"{fn.__name__}.sqlite")
                if os.path.exists(path):
                    os.remove(path)
                rmb.sweep(fn, items, store=path, progress=False)

            times[fn.__name__] = best(run, repeat=3)
        s, t = times["as_statespace"], times["as_tuple"]
        print(
            f"stored sweep of {n} items returning StateSpace vs tuples: {s:6.3f} s vs "
            f"{t:6.3f} s  ratio {s / t:5.2f}"
        )


if __name__ == "__main__":
    main()
