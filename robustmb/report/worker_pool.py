"""Independent checks shared out to worker processes started afresh.

A replay re-checks hundreds of stored certificates, each independent of the others and
each seconds of numpy work.  The workers are *spawned*, not forked, and start with one
OpenBLAS/OpenMP thread (``OPENBLAS_NUM_THREADS=1``, ``OMP_NUM_THREADS=1`` in their
environment): BLAS threads only cost time on the small matrices of one check, and
OpenBLAS fixes its thread count when it is loaded (a later runtime limit does not undo
it).  Each check runs in one worker, so the results do not depend on the number of
workers.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool

from ..errors import WorkerPoolError

#: Environment of the workers: one thread in every BLAS / OpenMP runtime.
WORKER_ENV = {
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}


def _init(initializer, initargs):
    # Ctrl-C reaches every process of the terminal's group: the parent alone handles it
    # (it stops the pool), so the workers do not each print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


@contextlib.contextmanager
def _environment(env):
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


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


def map_in_workers(func, items, *, workers=1, initializer=None, initargs=()):
    """Yield ``func(*item)`` for every item, in the order they finish, from spawned workers.

    ``func`` and ``initializer`` must be module-level functions and the items picklable;
    as with any spawned process, a script that calls this needs the usual
    ``if __name__ == "__main__":`` guard around its own work.
    ``min(workers, len(items))`` processes (at least one) start with :data:`WORKER_ENV`;
    each runs ``initializer(*initargs)`` once.  A worker's exception reaches the caller;
    an interrupt stops the pool (running calls finish, the others are cancelled) before
    it propagates.  A worker that dies (the missing guard above, or the system
    stopping it, e.g. for memory) raises :class:`robustmb.errors.WorkerPoolError`.

    Examples
    --------
    >>> import operator
    >>> sorted(map_in_workers(operator.mul, [(2, 3), (1, 1), (4, 5)], workers=2))
    [1, 6, 20]
    """
    items = list(items)
    if not items:
        return
    with _environment(WORKER_ENV):
        pool = ProcessPoolExecutor(
            max(1, min(workers, len(items))),
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_init,
            initargs=(initializer, initargs),
        )
        try:
            futures = [pool.submit(func, *item) for item in items]
        except BaseException:
            pool.shutdown(wait=True, cancel_futures=True)
            raise
    try:
        for fut in as_completed(futures):
            yield fut.result()
    except BrokenProcessPool as exc:
        raise WorkerPoolError(
            f"map_in_workers: a worker process of {func.__qualname__} stopped abruptly; "
            "a script that starts workers needs its own work under "
            "'if __name__ == \"__main__\":' (each spawned worker imports the script), "
            "otherwise the system may have stopped the worker (memory)"
        ) from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def cpu_seconds():
    """CPU time of this process and of its finished child processes (user + system).

    Examples
    --------
    >>> cpu_seconds() > 0
    True
    """
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system
