"""Independent checks shared out to forked worker processes.

A replay re-checks hundreds of stored certificates, each independent of the others and
each seconds of numpy work on data already in memory.  Forked workers inherit that data
(the function and its items are left in this module before the pool starts), so only
an index goes to a worker and only the result comes back.  Where ``fork`` is not
available, or one worker is asked for, the items are checked here, in order.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed

# the job of the pool being run: (function, items), read by the forked workers
_JOB: dict = {}


def _run(index):
    func, items = _JOB["job"]
    return func(items[index])


def _ignore_interrupts():
    # Ctrl-C reaches every process of the terminal's group: the parent alone handles it
    # (it stops the pool), so the workers do not each print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def available_cores():
    """The number of cores this process may run on.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def forked_map(func, items, *, workers=1):
    """Yield ``func(item)`` for every item, in the order they finish.

    With ``workers > 1`` (and at least two items) the calls run in that many forked
    processes; ``func`` must not depend on state changed after the call starts.  An
    interrupt stops the pool (the calls already running finish, the others are
    cancelled) before it propagates.

    Examples
    --------
    >>> sorted(forked_map(abs, [-3, 1, -2], workers=2))
    [1, 2, 3]
    """
    items = list(items)
    if workers <= 1 or len(items) < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for item in items:
            yield func(item)
        return
    if _JOB:
        raise RuntimeError("forked_map: one pool at a time")
    _JOB["job"] = (func, items)
    pool = ProcessPoolExecutor(
        min(workers, len(items)),
        mp_context=multiprocessing.get_context("fork"),
        initializer=_ignore_interrupts,
    )
    try:
        futures = [pool.submit(_run, k) for k in range(len(items))]
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
        _JOB.clear()


def cpu_seconds():
    """CPU time of this process and of its finished child processes (user + system).

    Examples
    --------
    >>> cpu_seconds() > 0
    True
    """
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
