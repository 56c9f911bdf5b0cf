"""Options of the H-infinity synthesis (``method``, ``rtol``, ``gtol``, ``cond_max``),
checked once for :func:`~robustmb.synthesis.hinfsyn.hinfsyn` and the functions that pass
them on (``mixsyn``)."""

from __future__ import annotations

import numpy as np

from robustmb.errors import ArgumentError

_METHODS = ("auto", "riccati", "lmi")


def is_real(x):
    """A real number, not a bool (numpy scalars included)."""
    return isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)


_OPTIONS = {"method": "auto", "rtol": 0.01, "gtol": 1e-7, "cond_max": 1e6}


def check_options(func, **options):
    """Check :func:`hinfsyn`'s options (``method``, ``rtol``, ``gtol``, ``cond_max``) for
    ``func``, which passes them on; errors name ``func`` and the option at fault.

    Examples
    --------
    >>> check_options("mixsyn", rtol=0.05)  # valid: nothing happens
    >>> try:
    ...     check_options("mixsyn", rtl=0.05)
    ... except ArgumentError as err:
    ...     print(str(err)[:32])
    mixsyn: unknown option 'rtl' (th
    """
    for key in options:
        if key not in _OPTIONS:
            raise ArgumentError(
                f"{func}: unknown option {key!r} (the H-infinity synthesis options are "
                f"{', '.join(_OPTIONS)})"
            )
    opts = {**_OPTIONS, **options}
    method, rtol, gtol, cond_max = (opts[k] for k in _OPTIONS)
    if method not in _METHODS:
        raise ArgumentError(f"{func}: method must be one of {_METHODS}; got {method!r}")
    if not is_real(rtol) or not 0 < rtol < 1:
        raise ArgumentError(f"{func}: rtol must be a number in (0, 1); got {rtol!r}")
    if not is_real(gtol) or not 0 < gtol < rtol:
        # the bisection must resolve the optimum more finely than the allowed backoff
        raise ArgumentError(
            f"{func}: gtol must be a number in (0, rtol) = (0, {rtol!r}); got {gtol!r}"
        )
    if not is_real(cond_max) or not cond_max >= 1:
        raise ArgumentError(f"{func}: cond_max must be a number >= 1; got {cond_max!r}")
