"""Wall-time helpers shared by the benchmark scripts (run as ``python benchmarks/<script>``,
so this folder is on ``sys.path``)."""

import time

import numpy as np


def median_time(fn, repeats):
    """Median wall time of ``fn()`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def best_time(fn, repeats=3):
    """``(best wall time, last result)`` of ``fn()`` over ``repeats`` calls."""
    times, out = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return min(times), out
