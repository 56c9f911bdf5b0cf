"""Cost of a sweep store's identity checks: item digests and the function's state.

Times, in the same run, (1) the canonical item digest (sets in sorted order) against the
plain pickle digest it replaces, on small tuple items, set items and one large array,
(2) the state digest of a few callables (a closure, a callable object, a function of the
assembly study that reads module globals), and (3) a whole resumed sweep of trivial
items with the state tracked against ``version=`` (no state digest).

Run: ``python benchmarks/bench_sweep_store_identity.py``
"""

import os
import tempfile

import numpy as np
from _timing import best_time

import robustmb as rmb
from robustmb.analysis.sweep import _digest, _fn_state, _legacy_digest


def best(f, repeat=5):
    return best_time(f, repeat)[0]


class Gain:
    def __init__(self, k):
        self.k = k
        self.table = np.linspace(0.0, 1.0, 1000)

    def __call__(self, x):
        return self.k * x


def main():
    tuples = [(float(k), float(c)) for k in range(50) for c in range(40)]
    sets = [frozenset(f"name{i}_{j}" for j in range(8)) for i in range(2000)]
    big = np.random.default_rng(0).standard_normal(10**6)
    print("item digests (best of 5), canonical vs plain pickle:")
    for name, items in (("2000 tuples", tuples), ("2000 frozensets of 8 str", sets)):
        a = best(lambda items=items: [_digest(x) for x in items])
        b = best(lambda items=items: [_legacy_digest(x) for x in items])
        print(f"  {name:28s} {a * 1e3:8.2f} ms vs {b * 1e3:8.2f} ms  ratio {a / b:5.2f}")
    a, b = best(lambda: _digest(big)), best(lambda: _legacy_digest(big))
    print(f"  {'1e6 float64 array':28s} {a * 1e3:8.2f} ms vs {b * 1e3:8.2f} ms  ratio {a / b:5.2f}")

    def make(k):
        return lambda x: k * x

    from robustmb.examples import assembly

    print("state digest (best of 5):")
    for name, fn in (
        ("closure", make(2.0)),
        ("callable object", Gain(2.0)),
        ("bound method", Gain(2.0).__call__),
        ("assembly.edge_count", assembly.edge_count),
    ):
        t = best(lambda fn=fn: _fn_state(fn, None))
        print(f"  {name:28s} {t * 1e3:8.3f} ms, {len(_fn_state(fn, None))} parts")

    with tempfile.TemporaryDirectory() as d:
        items = list(range(500))
        fn = Gain(2.0)
        for label, kw in (("state tracked", {}), ("version='1'", {"version": "1"})):
            path = os.path.join(d, f"{len(kw)}.sqlite")
            rmb.sweep(fn, items, store=path, progress=False, **kw)
            t = best(
                lambda path=path, kw=kw: rmb.sweep(fn, items, store=path, progress=False, **kw)
            )
            print(f"resume of 500 stored items, {label:14s} {t * 1e3:8.2f} ms")


if __name__ == "__main__":
    main()
