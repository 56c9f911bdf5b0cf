"""The direct search for a destabilising parameter set, verified by substitution.

:func:`.robust_stability.robstab`'s upper bound on the stability margin needs an actual
perturbation that destabilises the loop.  Besides the mu lower bound's, candidates come
from scanning directions in the box of the scalar (real and complex) parameters: along
each direction the smallest scaling at which a closed-loop pole reaches the stability
boundary (:mod:`.boundary_crossing`), over the box corners, random directions and a
local refinement of the best.  A candidate counts only once the substituted loop has a
pole beyond the boundary by more than the rounding error of its eigenvalues and of the
substitution (or is ill-posed there: the crossing at infinite frequency); a candidate
whose pole is only on the boundary within that error is scaled up until one is beyond.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .boundary_crossing import _MIN_STATES, crossing_search, is_ill_posed, scan_crossings
from .uncertain_problem import box_vertices


def _scalar_blocks(problem):
    return [bi for bi in problem.blocks if bi.kind in ("real", "complex")]


def _diag_from(problem, normalized):
    """Delta's diagonal for normalised scalar values (LTI blocks at zero)."""
    diag = np.zeros(problem.nw, dtype=complex)
    for bi in problem.blocks:
        if bi.name in normalized:
            diag[bi.w] = normalized[bi.name]
    return diag if np.any(diag.imag) else diag.real


def _crossing_scale(problem, direction, alpha_max, n_scan=24):
    """Smallest ``alpha <= alpha_max`` with a pole on/over the boundary along ``direction``.

    Large models search ``M11`` on the boundary (:func:`.boundary_crossing.crossing_search`);
    small ones scan the closed-loop poles at the ``n_scan`` scalings in one batch and
    bisect the first crossing (:func:`.boundary_crossing.scan_crossings`).
    """
    diag = _diag_from(problem, direction)
    fast = crossing_search(problem)  # large models: from M11 on the boundary
    if fast is not None:
        return fast.scale(diag, alpha_max)
    got = scan_crossings(problem.m11, problem.dt, diag[None, :], alpha_max, n_scan)[0]
    return None if np.isnan(got) else float(got)


# Box corners are enumerated up to this many scalar elements (4096 corners), where a
# direction is cheap: a scan of a small closed loop, or ``crossing_search``'s k x k
# problems on a large one.  A large model without that search (a non-square Delta)
# scans its full closed loop per direction and stops at 6 (64 corners).
_MAX_CORNERS = 12
_MAX_CORNERS_LARGE = 6
# Directions scanned in one batch of eigenvalue problems (small models); the cap of
# every batch is the best crossing found before it.
_CHUNK = 8


def _crossing_scales(problem, directions, alpha_max):
    """:func:`_crossing_scale` of each direction (``nan``: none up to ``alpha_max``).

    Small models scan all directions in one batch (:func:`.boundary_crossing.scan_crossings`);
    models searched on the boundary go one direction at a time.
    """
    diags = np.array([_diag_from(problem, d) for d in directions])
    fast = crossing_search(problem)
    if fast is None:
        return scan_crossings(problem.m11, problem.dt, diags, alpha_max)
    out = [fast.scale(diag, alpha_max) for diag in diags]
    return np.array([np.nan if a is None else float(a) for a in out])


def _parameter_search(problem, alpha_max, seed=0, n_random=60, extra_directions=()):
    """Smallest boundary-crossing scaling over directions in the scalar-parameter box.

    The directions are ``extra_directions``, the box corners (up to ``_MAX_CORNERS``
    elements), ``n_random`` random ones and a local refinement around the best; they
    are scanned in batches of ``_CHUNK``, each capped at the best crossing so far.
    """
    scal = _scalar_blocks(problem)
    if not scal:
        return None
    rng = np.random.default_rng(seed)
    k = len(scal)
    dirs = [dict(d) for d in extra_directions]
    cheap = crossing_search(problem) is not None or problem.m11[0].shape[0] < _MIN_STATES
    corners = _MAX_CORNERS if cheap else _MAX_CORNERS_LARGE
    if k <= corners:
        for signs in box_vertices(k):
            dirs.append({bi.name: s for bi, s in zip(scal, signs, strict=True)})
    for _ in range(n_random):
        v = rng.uniform(-1, 1, k)
        v /= np.max(np.abs(v))
        dirs.append({bi.name: x for bi, x in zip(scal, v, strict=True)})
    best = None

    def scan(group):
        nonlocal best
        for i in range(0, len(group), _CHUNK):
            chunk = group[i : i + _CHUNK]
            got = _crossing_scales(problem, chunk, alpha_max if best is None else best[0])
            if np.all(np.isnan(got)):
                continue
            j = int(np.nanargmin(got))
            if best is None or got[j] < best[0]:
                best = (float(got[j]), chunk[j])

    scan(dirs)
    if best is None:
        return None
    # Local refinement: random perturbations of the best direction.
    for step in (0.3, 0.1, 0.03):
        group = []
        for _ in range(10):
            v = np.array([best[1][bi.name] for bi in scal]) + step * rng.standard_normal(k)
            v = np.clip(v, -1, 1)
            if not np.any(v):
                continue
            v /= np.max(np.abs(v))
            group.append({bi.name: x for bi, x in zip(scal, v, strict=True)})
        scan(group)
    return best


# Pushes beyond a bisected crossing, tried in turn until the substituted loop is
# verifiably unstable (the crossing itself is only known to rounding accuracy):
# ``t = 1 + 2**-j``, about 1e-9, 1.2e-7, 7.6e-6 and 9.8e-4.
_PUSHES = (0.0, 2.0**-30, 2.0**-23, 2.0**-17, 2.0**-10)
# A candidate whose pole is on the boundary within rounding at ``t = 1`` is pushed out
# by doubling ``t`` (up to ``2**_DOUBLINGS``), then the first verified doubling is
# bisected (in ``log t``) this many times against the last unverified one.
_DOUBLINGS = 60
_BISECTIONS = 24
# A pole this many times beyond the centre loop's spectral radius escapes to infinity.
_ESCAPE = 1e6
_EPS = np.finfo(float).eps


def _substituted_a(problem, values):
    """Closed-loop state matrix at ``values``; None when the substitution is not
    well-posed, has no states or is not finite."""
    from ..errors import RobustMBError

    try:
        sys = problem.model.usubs(values)
    except (RobustMBError, ValueError, np.linalg.LinAlgError):
        return None
    a = np.asarray(sys.A) if hasattr(sys, "A") else np.zeros((0, 0))
    if a.shape[0] == 0 or not np.all(np.isfinite(a)):
        return None
    return a


def _substitution_error(problem, values, right, left, overlap):
    """First-order bound on how far each pole of ``usubs``'s state matrix lies from the
    same pole of the exact closed loop at the physical ``values``.

    ``usubs`` normalises each scalar value (``2 (v - lo) / (hi - lo) - 1`` for a
    ``ureal``), which rounds ``delta`` by up to ``4 eps (1 + |delta|)``: near the centre
    of a range that is an absolute error of about ``eps`` in normalised units, so a
    physical value ``1.388e-16`` on ``(-1, 1)`` is substituted as ``2.2e-16``.  With
    ``L = Bw (I - Delta Dzw)^-1`` and ``R = (I - Dzw Delta)^-1 Cz`` the state matrix moves
    by ``L dDelta R`` to first order, and closing the loop in floating point adds about
    ``8 eps (|A| + |L| |Delta| |R|)`` entrywise.  A pole with right and left eigenvectors
    ``x``, ``y`` (of the stored matrix) moves by at most
    ``(sum_i |dDelta_i| |y^H L_i| |R_i x| + 8 eps |y|^T (|A| + |L| |Delta| |R|) |x|) /
    |y^H x|``: a componentwise bound, unchanged by a scaling of the states or of the
    Delta channels.  ``inf`` when it cannot be formed.  Zero when no scalar block is
    substituted, and when dynamic (``ultidyn``) blocks add states to the loop: this
    first-order bound is not formed for them, and the rounding of the scalar values is
    then left to the eigenvalues' own allowance.
    """
    a, bw, cz, dzw = problem.m11
    blocks = [bi for bi in problem.blocks if bi.kind in ("real", "complex")]
    if not blocks or bw.shape[1] == 0 or a.shape[0] != right.shape[0]:
        return np.zeros(right.shape[1])
    try:
        diag = np.zeros(problem.nw, dtype=complex)
        for bi in blocks:
            diag[bi.w] = bi.element.normalize(values[bi.name])
        delta = np.diag(diag)
        eye_w, eye_z = np.eye(dzw.shape[1]), np.eye(dzw.shape[0])
        lft = bw @ np.linalg.inv(eye_w - delta @ dzw)
        rgt = np.linalg.inv(eye_z - dzw @ delta) @ cz
    except (KeyError, TypeError, ValueError, np.linalg.LinAlgError):
        return np.inf
    mag = np.abs(diag)
    yl = np.abs(left.conj().T @ lft)  # poles x channels
    rx = np.abs(rgt @ right).T  # poles x channels
    moved = (yl * rx) @ (4 * _EPS * (1.0 + mag))
    closed = np.abs(a) + np.abs(lft) @ (mag[:, None] * np.abs(rgt))
    rounded = 8 * _EPS * np.einsum("ip,ij,jp->p", np.abs(left), closed, np.abs(right))
    with np.errstate(divide="ignore", invalid="ignore"):
        err = np.where(overlap > 0, (moved + rounded) / overlap, np.inf)
    return np.where(np.isfinite(err), err, np.inf)


def _substituted_poles(problem, values):
    """Closed-loop poles at ``values`` and each pole's rounding error bound; None when
    the substitution is not well-posed.

    The eigenvalues are computed on the matrix balanced by powers of two (exact, as
    LAPACK's ``dgeev`` balances anyway), so their backward error is ``eps`` times the
    balanced norm, not the norm of the matrix as stored (which a time- or state-scaled
    loop inflates by many orders).  A pole's error is that backward error times its
    condition number ``|x| |y| / |y^H x|`` (first-order perturbation bound), so an
    ill-conditioned pole gets a wider allowance than the matrix norm alone would give.
    To it is added the distance of ``usubs``'s pole from the exact loop's at ``values``
    (:func:`_substitution_error`), so that a pole beyond the boundary by more than the
    allowance is beyond it for the values as reported, not only for ``usubs``'s
    rounding of them.
    """
    a = _substituted_a(problem, values)
    if a is None:
        return None
    ab, (scale_d, _) = scipy.linalg.matrix_balance(a, permute=False, separate=True)
    try:
        ev, left, right = scipy.linalg.eig(ab, left=True, right=True)
    except (ValueError, np.linalg.LinAlgError):
        return None
    overlap = np.abs(np.sum(left.conj() * right, axis=0))
    scale = np.linalg.norm(left, axis=0) * np.linalg.norm(right, axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        cond = np.where(overlap > 0, scale / overlap, np.inf)
    noise = 16 * _EPS * np.linalg.norm(ab, 1) * cond
    # eigenvectors of the stored matrix a = D ab D^-1: D x and D^-1 y (same y^H x)
    sub = _substitution_error(
        problem, values, scale_d[:, None] * right, left / scale_d[:, None], overlap
    )
    noise = noise + sub
    return ev, np.where(np.isnan(noise), np.inf, noise)


def _boundary_distance(ev, dt):
    """Signed distance of the worst pole beyond the boundary, that pole and its index."""
    k = int(np.argmax(np.abs(ev))) if dt else int(np.argmax(ev.real))
    return (float(np.abs(ev[k]) - 1.0) if dt else float(ev[k].real)), ev[k], k


def _pole_frequency(problem, pole):
    """Frequency of a boundary pole: signed for complex coefficients (no conjugate twin)."""
    freq = float(np.angle(pole) / problem.dt) if problem.dt else float(pole.imag)
    return freq if problem.is_complex else abs(freq)


def _unstable_at(problem, values_at, t, radius):
    """``(verdict, values, frequency)`` of the candidate scaled by ``t``: ``verdict`` is
    True when a pole is beyond the boundary by more than its rounding error
    (:func:`_substituted_poles`), ``"near"`` when the worst pole is within it, else
    False (also when the values cannot be formed or substituted)."""
    try:
        vals = values_at(t)
    except (ValueError, TypeError, np.linalg.LinAlgError):
        return False, None, None
    got = _substituted_poles(problem, vals)
    if got is None:
        return False, vals, None
    ev, errors = got
    dist, pole, k = _boundary_distance(ev, problem.dt)
    noise = max(float(errors[k]), 16 * _EPS if problem.dt else 0.0)
    if dist > noise:
        if not problem.dt and abs(pole) > _ESCAPE * (1.0 + radius):
            return True, vals, np.inf
        return True, vals, _pole_frequency(problem, pole)
    return ("near" if abs(dist) <= noise else False), vals, None


def _pushed_out(problem, values_at, t_lo, radius):
    """Smallest verified-unstable scaling found by doubling ``t`` from ``t_lo`` and
    bisecting the first verified step; ``(t, values, frequency)`` or None."""
    t_hi = None
    for _ in range(_DOUBLINGS):
        t = 2.0 * t_lo
        verdict, vals, freq = _unstable_at(problem, values_at, t, radius)
        if verdict is True:
            t_hi, best = t, (t, vals, freq)
            break
        t_lo = t
    if t_hi is None:
        return None
    for _ in range(_BISECTIONS):
        t = float(np.sqrt(t_lo * t_hi))
        if not t_lo < t < t_hi:
            break
        verdict, vals, freq = _unstable_at(problem, values_at, t, radius)
        if verdict is True:
            t_hi, best = t, (t, vals, freq)
        else:
            t_lo = t
    return best


def _verified_crossing(problem, alpha, values_at, *, on_boundary=True, grow=False):
    """Check a candidate destabilising perturbation by the poles of the substituted loop.

    ``values_at(t)`` gives the physical values of the candidate scaled by ``t``
    (``t = 1``: scaling ``alpha``).  The candidate is accepted at the smallest
    push ``t = 1 + eta`` (``eta`` in :data:`_PUSHES`) for which the substituted closed
    loop has a pole beyond the stability boundary by more than the rounding error of its
    eigenvalues and of the substitution (:func:`_substituted_poles`).  A pole merely on
    the boundary within that error proves nothing (the loop there may be exactly
    stable): when the candidate at ``t = 1`` has one (or ``grow`` is set), ``t`` is
    doubled until a pole is verified beyond the boundary and the first such step is
    bisected against the last unverified one; the scaled values are the witness.  A
    candidate at which the loop is ill-posed (``I - Dzw Delta`` singular to rounding,
    :func:`.boundary_crossing.is_ill_posed`) is accepted at ``t = 1`` with
    frequency ``inf`` when no push is unstable: loss of well-posedness is the
    boundary crossing at infinite frequency (``mu(Dzw) >= 1 / alpha``), whether
    or not a pole comes back unstable beyond it.  ``on_boundary=False`` does not accept
    such an ill-posed witness.  Never raises.

    Returns
    -------
    None, or ``(scaling, values, frequency, ill_posed)``; ``frequency`` is ``inf`` when
    the destabilising pole comes from infinity (a pole escaping as the scaling
    approaches the crossing) or the loop is ill-posed there (``ill_posed`` True).
    """
    ref = np.linalg.eigvals(problem.a) if problem.a.shape[0] else np.zeros(1)
    radius = float(np.max(np.abs(ref), initial=0.0))
    near = ill = None
    for eta in _PUSHES:
        t = 1.0 + eta
        if eta == 0.0:
            try:
                vals = values_at(t)
            except (ValueError, TypeError, np.linalg.LinAlgError):
                vals = None
            if vals is not None and is_ill_posed(problem, vals):
                # its poles are rounding noise: the pushes say whether a pole comes back
                # unstable beyond it; if none does, the ill-posed point is the witness
                ill = (alpha, vals, np.inf, True) if on_boundary else None
                continue
        verdict, vals, freq = _unstable_at(problem, values_at, t, radius)
        if verdict is True:
            return alpha * t, vals, freq, False
        if eta == 0.0:
            near = verdict == "near"
    if ill is None and (near or grow):
        got = _pushed_out(problem, values_at, 1.0 + _PUSHES[-1], radius)
        if got is not None:
            return alpha * got[0], got[1], got[2], False
    return ill


def _search_values(problem, alpha, direction):
    """Physical values along a search direction, scaled by ``t`` (``t = 1``: ``alpha``)."""

    def values_at(t):
        vals = {
            bi.name: bi.element.denormalize(t * alpha * direction[bi.name]).item()
            for bi in _scalar_blocks(problem)
        }
        for bi in problem.blocks:
            if bi.name not in vals:
                vals[bi.name] = np.zeros(bi.element.shape)
        return vals

    return values_at
