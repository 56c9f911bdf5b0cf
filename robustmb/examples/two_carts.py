"""The two-cart loop with three real parameters used by the real-parameter certificates."""

from __future__ import annotations

from ..lft import ureal


def two_carts_loop():
    """Two carts joined by an uncertain spring, under a high-gain lead controller.

    The 7-state loop of MATLAB's "Getting Reliable Estimates of Robustness Margins"
    example: cart masses ``m1``, ``m2`` and spring stiffness ``k`` (each 1 +- 20 %),
    the spring closed around the two double integrators as an LFT, and the controller
    ``K(s) = 100 ((s + 1) / (0.001 s + 1))^3`` in unit negative feedback.

    Returns
    -------
    UncertainSystem
        The closed loop, with elements ``m1``, ``m2`` and ``k``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> loop = rmb.examples.two_carts_loop()
    >>> sorted(loop.blocks), loop.nstates
    (['k', 'm1', 'm2'], 7)
    """
    import control

    from ..lft import feedback, hstack, lft_lower, uss, vstack

    m1 = ureal("m1", 1.0, percent=20)
    m2 = ureal("m2", 1.0, percent=20)
    k = ureal("k", 1.0, percent=20)
    s = control.tf("s")
    g1 = uss(control.ss(1 / (s * s))) / m1
    g2 = uss(control.ss(1 / (s * s))) / m2
    f = vstack(0.0, g1) @ hstack(1.0, -1.0) + vstack(1.0, -1.0) @ hstack(0.0, g2)
    c = uss(100 * control.ss(((s + 1) / (0.001 * s + 1)) ** 3))
    return feedback(lft_lower(f, k) @ c, 1.0)
