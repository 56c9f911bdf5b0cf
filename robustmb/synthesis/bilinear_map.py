"""The exact maps between discrete- and continuous-time synthesis problems.

A discrete-time H-infinity problem is solved on its bilinear equivalent
``z = (1 + s) / (1 - s)``, which keeps the norm of every closed loop, and the controller is
mapped back (:func:`to_continuous`, :func:`controller_from_continuous`).  The map sends
``z = -1`` to ``s = infinity``: a plant with a pole at or near ``z = -1`` is designed on
``P(-z)`` instead (:func:`nyquist_flip`, :func:`flip_plant`, :func:`flip_controller`),
which rotates every frequency response by ``pi`` and keeps every norm.  A plant with
poles near both ``z = 1`` and ``z = -1`` has no well-conditioned equivalent
(:func:`both_ends_note` says why in the error).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from robustmb.errors import IllPosedError

from .plant import Plant

__all__ = [
    "both_ends_note",
    "controller_from_continuous",
    "flip_controller",
    "flip_plant",
    "nyquist_flip",
    "to_continuous",
]


# Closeness of ``A`` to an eigenvalue ``-1`` (:func:`_boundary_cond`, about ``2 / d`` for a
# pole at ``-1 + d``) above which a discrete plant is designed on ``P(-z)`` (a pole within
# about 2e-6 of z = -1): at -1 + 1e-7 the bilinear equivalent of a test plant had no
# verifiable controller, at -1 + 1e-4 it was fine.
_FLIP_COND = 1e6
# The same measure above which the bilinear map is refused (a pole at z = -1 to rounding).
_SINGULAR_COND = 1e12


def _boundary_cond(A, sign):
    """How close ``A`` is to an eigenvalue ``-sign``, in the state coordinates' stead.

    ``min(r_sigma, r_eig)`` on ``A`` balanced by a diagonal similarity of powers of two
    (LAPACK gebal, exact): ``r_sigma = (1 + ||A||) / sigma_min(I + sign A)`` and
    ``r_eig = (1 + rho(A)) / min_i (|lam_i + sign| - band_i)`` (``inf`` when a distance is
    within its band), with ``band_i = eps ||A||_F kappa_i`` the first-order rounding of
    the eigenvalue ``lam_i`` (``kappa_i`` its condition number).  ``sigma_min`` alone
    depends on the coordinates: a stable plant (poles 0.5 and 0.6) whose second state
    is scaled by 1e7 has ``sigma_min(I + A) = 2.4e-7`` against ``||A|| = 1e7`` and was
    taken as having a pole at ``z = -1``; its eigenvalues, exact to 0.2 there, are 1.5
    away.  Both measures are about ``2 / d`` for a scalar pole at ``-sign + d``; the
    eigenvalue one cannot miss a pole at ``-sign`` that rounding hides (a Jordan block
    there has a huge ``kappa``, its band covers the distance and ``r_sigma`` decides).
    ``cond(I + A)`` would not do: it is scale invariant and 1 for any 1 x 1 matrix, so it
    cannot see a scalar pole at ``-1 + 1e-10``."""
    n = A.shape[0]
    A = scipy.linalg.matrix_balance(A, permute=False)[0]
    M = np.eye(n) + sign * A
    smin = np.linalg.svd(M, compute_uv=False)[-1]
    r_sigma = np.inf if smin == 0 else float((1.0 + np.linalg.norm(A, 2)) / smin)
    try:
        lam, vl, vr = scipy.linalg.eig(A, left=True, right=True)
    except (np.linalg.LinAlgError, ValueError):
        return r_sigma
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = 1.0 / np.abs(np.sum(vl.conj() * vr, axis=0))  # unit-norm vectors
    band = np.finfo(float).eps * np.linalg.norm(A) * kappa
    dist = np.min(np.abs(lam + sign) - band)
    if not np.isfinite(dist) or dist <= 0:
        return r_sigma
    return min(r_sigma, float((1.0 + np.max(np.abs(lam))) / dist))


def nyquist_flip(plant: Plant) -> bool:
    """Whether a discrete plant is better designed on ``P(-z)`` (see :func:`flip_plant`).

    True when ``I + A`` is close to singular relative to ``1 + ||A||`` (a pole at or
    near ``z = -1``, where the bilinear map of :func:`to_continuous` is singular) and
    ``I - A`` is less so (no pole as close to ``z = 1``, which the flip moves to ``z = -1``).
    With poles at both ``z = 1`` and ``z = -1`` no real map helps (see
    :func:`to_continuous`).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.bilinear_map import Plant, nyquist_flip
    >>> o = np.ones((1, 1))
    >>> nyquist_flip(Plant(-o, o, o, o, o, 0 * o, o, o, 0 * o, 1.0))
    True
    >>> nyquist_flip(Plant(0.5 * o, o, o, o, o, 0 * o, o, o, 0 * o, 1.0))
    False
    """
    n = plant.A.shape[0]
    if not plant.dt or n == 0:
        return False
    c_plus = _boundary_cond(plant.A, 1.0)
    return bool(c_plus > _FLIP_COND and _boundary_cond(plant.A, -1.0) < c_plus)


def flip_plant(plant: Plant) -> Plant:
    """``P(-z)`` of a discrete plant, realised as ``(-A, B, -C, D)``.

    ``P(-z) = D + C (-z I - A)^-1 B = D - C (z I + A)^-1 B``.  On the unit circle
    ``-exp(j theta) = exp(j (theta + pi))``: the frequency response is rotated by ``pi``,
    so every H-infinity and H2 norm and the stability of every closed loop carry over.  A
    controller ``K'`` designed for ``P(-z)`` gives ``K(z) = K'(-z)`` for ``P``
    (:func:`flip_controller`), with ``Fl(P, K)(z) = Fl(P(-z), K')(-z)``.  It moves a pole
    at ``z = -1`` to ``z = 1``, where the bilinear map is regular.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.bilinear_map import Plant, flip_plant
    >>> o = np.ones((1, 1))
    >>> F = flip_plant(Plant(-o, o, o, o, o, 0 * o, o, o, 0 * o, 1.0))
    >>> float(F.A[0, 0]), float(F.C1[0, 0]), float(F.B1[0, 0])
    (1.0, -1.0, 1.0)
    """
    return Plant(
        -plant.A, plant.B1, plant.B2, -plant.C1, -plant.C2, plant.D11, plant.D12,
        plant.D21, plant.D22, plant.dt, plant.input_names, plant.output_names, plant.dt_given,
    )  # fmt: skip


def flip_controller(K):
    """``K(-z)`` of discrete controller matrices: ``(-Ak, Bk, -Ck, Dk)`` (see
    :func:`flip_plant`)."""
    Ak, Bk, Ck, Dk = (np.asarray(M, float) for M in K)
    return -Ak, Bk, -Ck, Dk


def to_continuous(plant: Plant) -> Plant:
    """Bilinear equivalent (``z = (1 + s) / (1 - s)``) of a discrete-time plant.

    ``Pc(j nu) = Pd(exp(j theta))`` with ``nu = tan(theta / 2)``, so every H-infinity norm
    and stability property carries over exactly.  The map is singular at ``z = -1``: a
    plant with a pole there is designed on ``P(-z)`` instead (:func:`nyquist_flip`,
    :func:`flip_plant`).  A plant with poles at both ``z = 1`` and ``z = -1`` is refused:
    the flip moves the pole at ``z = 1`` to ``z = -1``, and no real-coefficient map of
    the disc onto a half-plane avoids both (it maps the circle's real points ``1`` and
    ``-1`` onto the imaginary axis or infinity, and one of them must go to infinity), so
    one of the modes has to be moved off the unit circle.  Poles near both ends without
    being on them (``1 - d1`` and ``-1 + d2``) are not refused but give a continuous
    equivalent with poles near ``s = 0`` and near infinity, spread over about
    ``4 / (d1 d2)``, on which a design may fail (:func:`both_ends_note` explains such a
    failure).  No other choice of map avoids this: a prewarped map
    ``z = (1 + s T / 2) / (1 - s T / 2)``, or any real Moebius map of the disc onto the
    half-plane, maps the real points ``1`` and ``-1`` of the circle to the real points
    of the imaginary axis and infinity, that is to ``0`` and ``infinity``, and only
    rescales ``s``, which leaves the spread unchanged.  The state coordinates are
    balanced first (a diagonal similarity by powers of two, exact).

    Raises
    ------
    IllPosedError
        For a pole at ``z = -1`` (to rounding).

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.bilinear_map import Plant, to_continuous
    >>> o = np.ones((1, 1))
    >>> Pc = to_continuous(Plant(0.5 * o, o, o, o, o, 0 * o, o, o, 0 * o, 1.0))
    >>> float(Pc.A[0, 0])  # z = 0.5 is s = (z - 1) / (z + 1) = -1/3
    -0.3333333333333333
    """
    A = plant.A
    n = A.shape[0]
    if n and _boundary_cond(A, 1.0) > _SINGULAR_COND:
        if _boundary_cond(A, -1.0) > _SINGULAR_COND:
            raise IllPosedError(
                "the discrete plant has poles at both z = 1 and z = -1 (modes at zero and "
                "at the Nyquist frequency): the bilinear map to continuous time is singular "
                "at z = -1, designing on P(-z) moves the pole at z = 1 there, and no real "
                "map of the disc avoids both; move one of these modes off the unit circle "
                "(e.g. a weight's integrator 1/(z - 1) to 1/(z - 1 + 1e-6))"
            )
        raise IllPosedError(
            "the discrete plant has a pole at z = -1, where the bilinear map to continuous "
            "time is singular: design on P(-z) (bilinear_map.flip_plant) and flip the controller "
            "back (bilinear_map.flip_controller)"
        )
    B = np.hstack([plant.B1, plant.B2])
    C = np.vstack([plant.C1, plant.C2])
    D = np.block([[plant.D11, plant.D12], [plant.D21, plant.D22]])
    A, B, C = _balanced_states(A, B, C)
    ipa = np.eye(n) + A
    k = np.linalg.solve(ipa, np.hstack([A - np.eye(n), B]))
    ac, bc = k[:, :n], np.sqrt(2.0) * k[:, n:]
    cc = np.sqrt(2.0) * np.linalg.solve(ipa.T, C.T).T
    dc = D - C @ np.linalg.solve(ipa, B)
    m1, p1 = plant.B1.shape[1], plant.C1.shape[0]
    return Plant(
        ac, bc[:, :m1], bc[:, m1:], cc[:p1], cc[p1:], dc[:p1, :m1], dc[:p1, m1:],
        dc[p1:, :m1], dc[p1:, m1:], 0.0, plant.input_names, plant.output_names,
    )  # fmt: skip


# Distance of poles to both z = 1 and z = -1 below which a failed discrete design is
# explained by the stiffness of every bilinear equivalent (see ``both_ends_note``).
_BOTH_ENDS = 1e-3


def both_ends_note(plant: Plant) -> str:
    """Why a discrete design may fail: poles near both ``z = 1`` and ``z = -1``.

    Returns ``""`` unless the balanced ``A`` has eigenvalues within ``1e-3`` of both ends
    of the real axis; then a sentence (to append to an error) with the two distances
    ``d1``, ``d2``, the spread ``4 / (d1 d2)`` of the poles of the continuous-time
    equivalent the design is made on (see :func:`to_continuous`) and what to do.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.synthesis.bilinear_map import Plant, both_ends_note
    >>> o = np.ones((2, 1))
    >>> A = np.diag([-1 + 1e-9, 1 - 1e-7])
    >>> note = both_ends_note(Plant(A, o, o, o.T, o.T, o[:1], o[:1], o[:1], 0 * o[:1], 1.0))
    >>> "z = 1 (distance 1e-07) and z = -1 (distance 1e-09)" in note
    True
    >>> both_ends_note(Plant(np.diag([-1.0, 0.5]), o, o, o.T, o.T, o[:1], o[:1], o[:1],
    ...                      0 * o[:1], 1.0))
    ''
    """
    if not plant.dt or plant.A.shape[0] == 0:
        return ""
    lam = np.linalg.eigvals(scipy.linalg.matrix_balance(plant.A, permute=False)[0])
    d1, d2 = float(np.min(np.abs(lam - 1.0))), float(np.min(np.abs(lam + 1.0)))
    if not (d1 <= _BOTH_ENDS and d2 <= _BOTH_ENDS):
        return ""
    spread = "an unbounded ratio" if d1 * d2 == 0 else f"about {4.0 / (d1 * d2):.2g}"
    return (
        f"; the discrete plant has poles near both z = 1 (distance {d1:.2g}) and z = -1 "
        f"(distance {d2:.2g}): every real bilinear map of the unit disc onto the half-plane "
        "sends z = 1 and z = -1 to s = 0 and s = infinity, so the continuous-time "
        f"equivalent the design is made on has poles spread over {spread}, more than "
        "double precision may resolve; move one of these modes further from the unit "
        "circle (e.g. a "
        "weight's integrator 1/(z - 1) to 1/(z - 1 + 1e-3))"
    )


def _balanced_states(A, B, C):
    """``(A, B, C)`` in state coordinates balanced by a diagonal similarity of powers of
    two (LAPACK gebal on ``[[A, B], [C, 0]]``, no permutation; exact, the transfer
    function is unchanged).  A plant with its second state in units 1e6 times smaller
    (poles 0.5 and 0.6) gave a bilinear equivalent with entries up to 1e6 on which no
    controller passed verification."""
    n = A.shape[0]
    if n == 0 or not (np.all(np.isfinite(A)) and np.all(np.isfinite(B))
                      and np.all(np.isfinite(C))):  # fmt: skip
        return A, B, C
    p, m = C.shape[0], B.shape[1]
    size = n + max(m, p)
    M = np.zeros((size, size))
    M[:n, :n], M[:n, n : n + m], M[n : n + p, :n] = A, B, C
    _, (scale, _) = scipy.linalg.matrix_balance(M, permute=False, separate=True)
    d = scale[:n]
    return A / d[:, None] * d[None, :], B / d[:, None], C * d[None, :]


def controller_from_continuous(K):
    """Inverse bilinear map (``s = (z - 1) / (z + 1)``) of controller matrices."""
    Ak, Bk, Ck, Dk = K
    nk = Ak.shape[0]
    if nk == 0:
        return K
    ima = np.eye(nk) - Ak
    if np.linalg.cond(ima) > 1e12:
        raise IllPosedError("the continuous-time controller has a pole at s = 1")
    sol = np.linalg.solve(ima, np.hstack([np.eye(nk) + Ak, Bk]))
    ad, bd = sol[:, :nk], np.sqrt(2.0) * sol[:, nk:]
    cd = np.sqrt(2.0) * np.linalg.solve(ima.T, Ck.T).T
    dd = Dk + Ck @ np.linalg.solve(ima, Bk)
    return ad, bd, cd, dd
