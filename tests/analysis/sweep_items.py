"""Module-level (picklable) item functions for the sweep tests."""

import os
import signal

import numpy as np


def closed_loop_peak(item):
    """Spectral abscissa and H-inf-type peak of a PD-controlled mass-spring family.

    Deterministic in ``item = (k, c)``: the same input gives bit-identical output
    wherever it runs.
    """
    k, c = item
    a = np.array([[0.0, 1.0], [-(1.0 + k), -(0.1 + c)]])
    w = np.logspace(-2, 2, 200)
    g = 1.0 / np.abs(-(w**2) + 1j * w * (0.1 + c) + (1.0 + k))
    return {"abscissa": float(np.max(np.linalg.eigvals(a).real)), "peak": float(g.max())}


def logged(item):
    """``closed_loop_peak`` that appends its key to the file named by SWEEP_LOG, and kills
    its own process on the item whose repr is SWEEP_KILL_AT (a crash mid-sweep)."""
    if os.environ.get("SWEEP_KILL_AT") == repr(item):
        os.kill(os.getpid(), signal.SIGKILL)
    with open(os.environ["SWEEP_LOG"], "a") as f:
        f.write(f"{item[0]!r} {item[1]!r}\n")
    return closed_loop_peak(item)


def dies_once(item):
    """Kills its own worker process on item (0.5, 0.5) until the marker file exists."""
    marker = os.environ["SWEEP_MARKER"]
    if item == (0.5, 0.5) and not os.path.exists(marker):
        open(marker, "w").close()
        os._exit(1)
    return closed_loop_peak(item)


def fails_on_negative(item):
    """Raises for a negative stiffness: a failing item must be reported with its key."""
    if item[0] < 0:
        raise ValueError(f"negative stiffness {item[0]}")
    return closed_loop_peak(item)


def grid(n=5):
    """The ``n x n`` (k, c) grid used by the tests."""
    vals = np.round(np.linspace(0.0, 1.0, n), 6)
    return [(float(k), float(c)) for k in vals for c in vals]


def always_dies(item):
    """Kills its own worker process on item (0.5, 0.5), every time (a crashing item)."""
    if item == (0.5, 0.5):
        os._exit(1)
    return closed_loop_peak(item)


def slow_peak(item):
    """``closed_loop_peak`` after a short sleep: a sweep that can be interrupted midway."""
    import time

    time.sleep(0.05)
    return closed_loop_peak(item)
