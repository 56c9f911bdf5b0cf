"""A memo of a function's last call (the tuning layer's inner evaluations)."""

from __future__ import annotations

import numpy as np

__all__ = ["last_call"]


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
    # One (key, result) tuple, replaced by a single assignment, so that a thread never
    # reads one call's key with another call's result.
    last = [None]

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
        memo = last[0]
        if memo is None or memo[0] != k:
            memo = (k, fn(*args))
            last[0] = memo
        return copied(memo[1])

    wrapper.__doc__, wrapper.__name__, wrapper.__wrapped__ = fn.__doc__, fn.__name__, fn
    return wrapper
