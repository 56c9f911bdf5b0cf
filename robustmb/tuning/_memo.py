"""A memo of a function's last call (the tuning layer's inner evaluations)."""

from __future__ import annotations

import numpy as np

__all__ = ["last_call", "recent_calls"]


def last_call(fn):
    """Memo of ``fn``'s last call, keyed by the bytes, shapes and dtypes of its arguments.

    A multi-peak set (:func:`hinf_peaks`) starts at the point the objective has just
    evaluated: its modal form and the gradient at the known peak are those of that
    evaluation.  The same inputs give the same outputs (bit for bit), so a hit only
    saves work.  Array results are returned as copies.

    Examples
    --------
    >>> import numpy as np
    >>> @last_call
    ... def total(x):
    ...     print("computed")
    ...     return float(x.sum())
    >>> total(np.ones(3))
    computed
    3.0
    >>> total(np.ones(3))  # the same bytes: the memo
    3.0
    """
    return recent_calls(1)(fn)


def recent_calls(size):
    """Memo of ``fn``'s last ``size`` distinct calls (see :func:`last_call`).

    With several models (multi-model tuning) the objective's stability test asks for the
    poles of every loop before the inner evaluations ask for them again, one loop at a
    time: a memo of one call would miss all but the last.

    Examples
    --------
    >>> import numpy as np
    >>> @recent_calls(2)
    ... def total(x):
    ...     print("computed")
    ...     return float(x.sum())
    >>> total(np.ones(3)), total(np.zeros(3))
    computed
    computed
    (3.0, 0.0)
    >>> total(np.ones(3))  # still held
    3.0
    """
    if not (isinstance(size, int) and size >= 1):
        raise ValueError(f"recent_calls: size must be an integer >= 1, got {size!r}")
    return lambda fn: _memo(fn, size)


def _memo(fn, size):
    # One tuple of (key, result) pairs, replaced by a single assignment, so that a thread
    # never reads one call's key with another call's result.
    held = [()]

    def key(args):
        out = []
        for v in args:
            if not isinstance(v, np.ndarray | float | int):
                raise TypeError(f"last_call keys arrays and numbers only, got {type(v).__name__}")
            a = np.asarray(v)  # by bytes: -0.0 and 0.0 are different keys
            out += [type(v), a.shape, a.dtype.str, a.tobytes()]
        return tuple(out)

    def copied(r):
        if isinstance(r, tuple):
            return tuple(copied(v) for v in r)
        return r.copy() if isinstance(r, np.ndarray) else r

    def wrapper(*args):
        k = key(args)
        entries = held[0]
        for memo_key, result in entries:
            if memo_key == k:
                return copied(result)
        result = fn(*args)
        held[0] = ((k, result),) + entries[: size - 1]
        return copied(result)

    wrapper.__doc__, wrapper.__name__, wrapper.__wrapped__ = fn.__doc__, fn.__name__, fn
    return wrapper
