"""The frequency response of the balanced realisation, as the mu sweeps evaluate it."""

from __future__ import annotations

import warnings

import numpy as np

from .balancing import balance_realization
from .freqresp import response_function

# freqresp's warning for a point that double-double refinement did not make accurate
_INACCURATE = "the response at .* cancels beyond what double-double"


def balanced_response_function(a, b, c, d, dt=0.0):
    """``omega -> M(j omega)`` evaluated on the balanced realisation of ``(A, B, C, D)``.

    Balancing is a diagonal similarity by powers of 2 (exact in floating point: the
    same ``M``), but a stiff model evaluated unbalanced loses digits to the spread of
    its entries: on the two-cart loop (``||A||`` about 1e11) about 4 digits at the
    70 rad/s peak of mu.  :func:`~robustmb.analysis.freqresp.freqresp`'s warning that a
    point stayed inaccurate after refinement is not passed on: the certificates built
    on these responses bound each point's error themselves.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([[0.0, 1e6], [-1e-6, -0.1]])
    >>> b, c, d = np.array([[0.0], [1.0]]), np.array([[1.0, 0.0]]), np.zeros((1, 1))
    >>> m = balanced_response_function(a, b, c, d)(np.array([1.0]))[0, 0, 0]
    >>> bool(np.isclose(m, 1e6 / ((1j) ** 2 + 0.1j + 1.0)))
    True
    """
    ab, bb, cb = balance_realization(np.asarray(a), np.asarray(b), np.asarray(c))
    respond = response_function((ab, bb, cb, d, dt) if dt else (ab, bb, cb, d))

    def quiet(omega):
        # the certificates check each point with an error-bounded response of their own
        # (checked_response): the sweep's note that a point stayed inaccurate is not news
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", _INACCURATE, RuntimeWarning)
            return respond(omega)

    return quiet
