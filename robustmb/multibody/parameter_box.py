"""Values of an uncertain physical parameter over the box of its ureals.

A mass, an inertia tensor or a rotor inertia may be an expression of ureals;
it is physical (non-negative, positive semidefinite) only if it is so at every
point of the box ``lo_i <= p_i <= hi_i`` of the ureals it involves.

When the quantity is affine in each ureal separately (multi-affine: ``a + b m``,
``m L``, a tensor entry ``Jxy``), the quadratic form ``x^T J(p) x`` is multi-affine
in ``p`` for every fixed ``x``, so its minimum over the box is reached at a vertex:
``J(p) >= 0`` on the whole box iff it holds at the ``2^n`` vertices.  Multi-affinity
is decided from the structure of the quantity's LFT (:func:`multi_affine`: a loop with no
cycle, and no path through two channels of one ureal), never by comparing values, which
a quantity that is almost affine at some points would fool.

Otherwise (``L * L``, a ratio) or when more than :data:`MAX_VERTEX_ELEMENTS`
ureals are involved, :func:`box_samples` samples the vertices (if enumerable), a grid
of the box and random points (:data:`MAX_GRID_POINTS` in all), and reports that the
check is not exhaustive.  Values are compared with zero up to their rounding
(:func:`rounding_tolerance`).

:func:`semidefinite_samples` decides such a quantity exactly with the structured
singular value.  The quantity is a static LFT in the normalised parameters,
``J(Delta) = D + C Delta (I - A Delta)^-1 B`` with ``Delta = diag(delta_i I_ri)``,
``|delta_i| <= 1`` and ``D = J`` at the centre of the box; its symmetric part
``(J + J^T) / 2`` is again one (``diag(A, A^T)`` closed by ``diag(Delta, Delta)``), and
``x^T J x`` depends only on it.  Coordinates whose row of the symmetric part is zero for
every ``Delta`` (a zero inertia component) are left out: the rest must be definite.  If

(a) ``D`` is positive definite,
(b) ``det(I - A Delta) != 0`` on the box (``mu(A) < 1`` for the real repeated scalars,
    or the graph of ``A`` has no cycle, as for a product ``m L L``), and
(c) ``det(I - (A - B D^-1 C) Delta) != 0`` on the box,

then ``J`` is nonsingular on the box, as
``det J = det D det(I - (A - B D^-1 C) Delta) / det(I - A Delta)``, and since the box is
connected and no eigenvalue of the continuous symmetric ``J`` crosses 0, ``J`` stays
positive definite on the whole box.  (c) is proved with the D,G upper bound of ``mu``
(:func:`~robustmb.analysis.mussv.mussv`), its rounding included: the computed
complement ``A - B D^-1 C`` carries an error ``E`` bounded entrywise, entered as an
extra full block, and the determinant is split over the strongly connected components of
the pattern of ``|A - B D^-1 C| + |E|``.  When a certified lower bound of
``mu(A - B D^-1 C)`` exceeds 1, its perturbation makes ``J`` singular strictly inside
the box; ``J`` is evaluated along that ray beyond the crossing and the first point where
an eigenvalue is negative refutes the quantity (a singular but semidefinite crossing,
``(k - 1)^2``, does not).  When neither holds (the bracket straddles 1; ``D`` singular,
as for a range that reaches a zero mass, where only semidefiniteness holds) the
sampling remains and the callers warn.  Symmetry itself is checked at the samples.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
from scipy.sparse.csgraph import connected_components

from .. import lft
from ..analysis.mu_lower import lower_bound
from ..analysis.mu_structure import BlockStructure
from ..analysis.mussv import mussv_stack, verify_upper_bound
from ..errors import FloatRangeError, RobustMBWarning, UncertainTypeError
from ..lft.substitution import batched_substitute
from . import _generic as g

#: Largest number of ureals whose ``2^n`` box vertices are enumerated.
MAX_VERTEX_ELEMENTS = 10
#: Largest number of grid points used when the quantity is not multi-affine.
MAX_GRID_POINTS = 4096
#: Random points added when the vertices are too many to enumerate.
RANDOM_POINTS = 512

_EPS = np.finfo(float).eps
# the mu upper bound is optimised only until it is below this (any bound below 1 proves)
_TARGET = 0.9


def box_samples(x):
    """Values of ``x`` at the points of the box where its validity is checked.

    Parameters
    ----------
    x : number, ureal, uncertain expression or 2-D array-like of them
        A static quantity of real parameters.

    Returns
    -------
    samples : list of (str, ndarray)
        ``(where, value)``: ``where`` is ``""`` for a number, ``" (nominal)"``, or
        names the point, e.g. ``" (at the vertex {'m': 0.8, 'L': 1.1} of the box of
        its ureals)"``; ``value`` is a 2-D float array.  The nominal comes first.
    exact : bool
        True if the quantity's LFT is multi-affine in its ureals by structure
        (:func:`multi_affine`) and every vertex is listed: then a property that is
        convex in the value (``>= 0``, positive semidefinite) holds on the whole box
        iff it holds at these samples.
    description : str
        What was checked, for a warning when ``exact`` is False.

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.ureal("k", 1.0, range=(-0.5, 3.0))
    >>> samples, exact, _ = box_samples(2.0 * k)
    >>> exact, [round(float(v[0, 0]), 6) for _, v in samples]
    (True, [2.0, -1.0, 6.0])
    >>> samples[1][0]
    " (at the vertex {'k': -0.5} of the box of its ureals)"
    """
    return _box_samples(x, dense=True)


def _box_samples(x, dense):
    """:func:`box_samples`; with ``dense`` False, no grid or random points are added."""
    if g.is_number(x):
        return [("", np.atleast_2d(np.asarray(x, dtype=float)))], True, ""
    model = _as_static_model(x)
    elements = model.uncertainty
    names = list(elements)
    for n, el in elements.items():
        if el.kind != "real":
            raise UncertainTypeError(
                f"a physical parameter depends only on real parameters (ureal), got the "
                f"{el.kind} element {n!r}"
            )
    if not names:
        return [("", np.asarray(model.nominal(), dtype=float))], True, ""
    lo = np.array([float(elements[n].range[0]) for n in names])
    hi = np.array([float(elements[n].range[1]) for n in names])
    nom = np.array([float(elements[n].nominal) for n in names])
    p = len(names)
    points, labels = [nom], [" (nominal)"]
    if p <= MAX_VERTEX_ELEMENTS:
        corners = np.array(list(itertools.product((0.0, 1.0), repeat=p)))
        vertices = lo + corners * (hi - lo)
        points += list(vertices)
        labels += [_label("the vertex", names, v) for v in vertices]
        # decided from the structure of the LFT, never from values (module notes)
        affine = multi_affine(model)
        if affine or not dense:
            values = _evaluate(model, elements, names, points)
            return list(zip(labels, values, strict=True)), affine, ""
        grid, what = _fill(p, lo, hi)
        points += grid
        labels += [_label("the point", names, v) for v in grid]
        values = _evaluate(model, elements, names, points)
        what = (
            f"its LFT is not multi-affine in its ureals {names}; checked at the nominal, "
            f"the {2**p} vertices and {what} of the box, not everywhere"
        )
        return list(zip(labels, values, strict=True)), False, what
    if not dense:
        return [(labels[0], _evaluate(model, elements, names, points)[0])], False, ""
    # too many vertices: each ureal at its range ends (others nominal), then random points
    for i in range(p):
        for end in (lo[i], hi[i]):
            pt = nom.copy()
            pt[i] = end
            points.append(pt)
            labels.append(_label("the point", names, pt))
    rand = lo + np.random.default_rng(0).uniform(size=(RANDOM_POINTS, p)) * (hi - lo)
    points += list(rand)
    labels += [_label("the point", names, v) for v in rand]
    values = _evaluate(model, elements, names, points)
    what = (
        f"it involves {p} ureals (more than {MAX_VERTEX_ELEMENTS}); checked at the nominal, "
        f"each ureal at its range ends and {RANDOM_POINTS} random points of the box, "
        "not everywhere"
    )
    return list(zip(labels, values, strict=True)), False, what


def _as_static_model(x):
    if isinstance(x, lft.UncertainModel):
        return x
    if isinstance(x, lft.UncertainElement | lft.UncertainRational):
        return lft.umat(x)
    return g.matrix(x) if not g.is_number(g.matrix(x)) else lft.umat(g.matrix(x))


def _fraction(v, lo, hi):
    width = np.where(hi > lo, hi - lo, 1.0)
    return np.clip((v - lo) / width, 0.0, 1.0)


def _grid_levels(p, budget):
    """Largest ``l`` with ``l^p <= budget`` (integer arithmetic, no rounding of a root)."""
    levels = max(1, int(round(budget ** (1.0 / p))))
    while levels**p > budget:
        levels -= 1
    while (levels + 1) ** p <= budget:
        levels += 1
    return levels


def _fill(p, lo, hi):
    """:data:`MAX_GRID_POINTS` extra points of the box (grid, then random); and their description.

    The largest regular grid of at most :data:`MAX_GRID_POINTS` points with 3 levels or
    more (a 2-level grid is the vertices again), completed by random points (fixed seed,
    reproducible) up to :data:`MAX_GRID_POINTS`.
    """
    levels = _grid_levels(p, MAX_GRID_POINTS)
    frac = []
    if levels >= 3:
        ticks = np.linspace(0.0, 1.0, levels)
        frac = [np.array(t) for t in itertools.product(ticks, repeat=p)]
    nrand = MAX_GRID_POINTS - len(frac)
    frac += list(np.random.default_rng(0).uniform(size=(nrand, p)))
    what = f"{nrand} random points"
    if levels >= 3:
        grid = f"a grid of {levels}^{p} points"
        what = f"{grid} and {what}" if nrand else grid
    return [lo + t * (hi - lo) for t in frac], what


def multi_affine(model):
    """True if the LFT of a static ``model`` is multi-affine in its elements by structure.

    With ``w = Delta z``, ``z = A w + B u`` and ``y = C w + D u``, the value is
    ``D + C Delta (I - A Delta)^-1 B``.  When the graph of the nonzero entries of the
    loop ``A`` (an edge ``j -> i`` for ``A[i, j] != 0``) has no cycle, ``A Delta`` is
    nilpotent and the value is the finite sum over the paths ``j_0 -> ... -> j_k`` of
    ``C[:, j_k] delta_(j_k) A[j_k, j_(k-1)] ... delta_(j_0) B[j_0, :]``: a product of the
    parameters met along the path.  If moreover no path joins two channels of one
    element, no parameter is met twice, so every term, hence the value, is affine in
    each parameter separately.  The test reads only the sparsity pattern: it never
    mistakes a non-affine quantity for an affine one (it may miss an affine one whose
    LFT is not minimal, which is then decided otherwise).

    Examples
    --------
    >>> import robustmb as rmb
    >>> m = rmb.ureal("m", 2.0, percent=10)
    >>> L = rmb.ureal("L", 1.0, percent=10)
    >>> multi_affine(rmb.umat(m * L + 3.0 * m)), multi_affine(rmb.umat(m * L * L))
    (True, False)
    """
    real = model._real
    nw, nz = real.nw, real.nz
    if nw != nz:  # not a loop of real scalars
        return False
    loop = np.asarray(real.d)[:nz, :nw] != 0
    owner = np.empty(nw, dtype=int)
    for k, (_, el, _, ws, _) in enumerate(real.block_slices()):
        if el.block_shape != (1, 1):
            return False
        owner[ws] = k
    # transitive closure by repeated squaring: reach[i, j] iff a path j -> ... -> i
    reach = loop.copy()
    while True:
        nxt = reach | ((reach.astype(np.int64) @ reach.astype(np.int64)) > 0)
        if (nxt == reach).all():
            break
        reach = nxt
    same = owner[:, None] == owner[None, :]  # includes i == j: a cycle
    return not (reach & same).any()


def rounding_tolerance(samples):
    """Rounding allowance of the sampled values of one quantity: ``16 eps`` times its size.

    The values are evaluated in floating point from the quantity's LFT, so an exact zero
    (a mass whose range reaches 0, ``(k - 1)^2`` at ``k = 1``) comes out as a few units of
    ``eps`` times the magnitude of the quantity over the box, here the largest ``|entry|``
    of the samples.  A value below ``-16 eps`` times that is refused as negative.

    Examples
    --------
    >>> import numpy as np
    >>> bool(rounding_tolerance([("", np.array([[0.25]])), ("", np.array([[-1e-18]]))]) < 1e-15)
    True
    """
    size = max((float(np.abs(v).max()) for _, v in samples if np.size(v)), default=0.0)
    return 16.0 * _EPS * size


def _label(kind, names, point):
    vals = ", ".join(f"{n!r}: {float(v):.6g}" for n, v in zip(names, point, strict=True))
    return f" (at {kind} {{{vals}}} of the box of its ureals)"


def _evaluate(model, elements, names, points):
    """Numeric values of a static model at physical parameter points (batched)."""
    pts = np.array(points, dtype=float).reshape(len(points), len(names))
    norm = {
        n: np.asarray(elements[n].normalize(pts[:, i]), dtype=float) for i, n in enumerate(names)
    }
    return [np.asarray(v, dtype=float) for v in batched_substitute(model, norm)]


def semidefinite_samples(x):
    """Points of the box where ``x`` is checked positive semidefinite; whether that is exact.

    As :func:`box_samples` (nominal and vertices, exact for a multi-affine ``x``), but a
    quantity that is not multi-affine, or involves more than :data:`MAX_VERTEX_ELEMENTS`
    ureals, is first decided by the structured singular value (module notes):

    * proved positive definite on the box (or semidefinite with coordinates that are zero
      for every parameter value): the nominal and the vertices, ``exact`` True;
    * refuted: the same plus a point of the box where the value (evaluated there) has a
      negative eigenvalue, ``exact`` True (a caller's check then refuses at that point);
    * undecided (the ``mu`` bracket straddles 1, the value at the box centre is singular,
      or the quantity is not square): the sampling of :func:`box_samples`, ``exact``
      False, and the description says why.

    Parameters
    ----------
    x : number, ureal, uncertain expression or 2-D array-like of them
        A static, square quantity of real parameters (a mass, an inertia tensor).

    Returns
    -------
    samples : list of (str, ndarray)
    exact : bool
    description : str
        See :func:`box_samples`.

    Examples
    --------
    A rod inertia ``m L^2 / 12`` is not affine in ``L``, yet proved positive on the box:

    >>> import robustmb as rmb
    >>> m = rmb.ureal("m", 2.0, percent=20)
    >>> L = rmb.ureal("L", 1.0, range=(0.8, 1.3))
    >>> samples, exact, _ = semidefinite_samples(m * L * L / 12)
    >>> exact, len(samples)
    (True, 5)

    ``(k - 1)^2 - 0.01`` is positive at both ends of ``k`` in ``[0.6, 2]`` but not near 1:

    >>> k = rmb.ureal("k", 1.5, range=(0.6, 2.0))
    >>> samples, exact, _ = semidefinite_samples((k - 1.0) * (k - 1.0) - 0.01)
    >>> where, value = samples[-1]
    >>> exact, bool(value[0, 0] < 0)
    (True, True)
    """
    samples, exact, _ = _box_samples(x, dense=False)
    if exact:
        return samples, True, ""
    scale = max(float(np.abs(v).max()) for _, v in samples)
    try:
        verdict, point, why = _mu_verdict(_as_static_model(x), scale)
    except FloatRangeError:  # entries below the normal range: mu is not computed
        verdict, point, why = "undecided", None, "its LFT has subnormal entries"
    if verdict == "proved":
        return samples, True, ""
    if verdict == "refuted":
        return samples + [point], True, ""
    samples, _, what = box_samples(x)
    return samples, False, f"{what} ({why})"


def _mu_verdict(model, scale):
    """``("proved" | "refuted" | "undecided", (where, value) or None, why)`` by ``mu``."""
    real = model._real
    elements = model.uncertainty
    names = list(elements)
    reps = [r for _, _, r, _, _ in real.block_slices()]
    nw, nz = real.nw, real.nz
    d = np.asarray(real.d, dtype=float)
    A, B, C, D = d[:nz, :nw], d[:nz, nw:], d[nz:, :nw], d[nz:, nw:]
    if D.shape[0] != D.shape[1]:
        return "undecided", None, "not a square quantity"
    if len(reps) != len(names):
        return "undecided", None, "it depends on tunable parameters"
    blk = [(-r, 0) for r in reps]
    A2, B2, C2, D2, blk2 = _symmetric_part(A, B, C, D, reps)
    # a coordinate whose row of the symmetric part is zero for every delta (a zero
    # inertia component) is left out: semidefinite there, definite on the rest
    keep = D2.any(axis=1) | C2.any(axis=1)
    if not keep.any():
        return "proved", None, ""
    B2, C2, D2 = B2[:, keep], C2[keep], D2[np.ix_(keep, keep)]
    lam, V = np.linalg.eigh(D2)
    tiny = 1e-9 * scale
    # beyond the rounding of the centre value: clearly negative, or clearly not singular
    noise = 64 * len(lam) * _EPS * float(np.abs(lam).max())
    lo = np.array([float(elements[n].range[0]) for n in names])
    hi = np.array([float(elements[n].range[1]) for n in names])
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    if lam[0] < -noise:
        value = _evaluate(model, elements, names, [centre])[0]
        return "refuted", (_label("the centre", names, centre), value), ""
    if lam[0] <= noise:
        return "undecided", None, "the value at the centre of the box is singular"
    if _acyclic(A):
        well = 0.0
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RobustMBWarning)
            well = float(mussv_stack(A[None], blk, lower=False, target=_TARGET).upper[0])
    if not well < 1.0:
        return (
            "undecided",
            None,
            (
                f"mu of its LFT loop is not proved below 1 (upper bound {well:.4g}): "
                "not proved finite on the box"
            ),
        )
    # congruence by S = V diag(lam)^-1/2 keeps the inertia and makes the centre value ~ I
    S = V / np.sqrt(lam)
    Bn, Cn, Dn = B2 @ S, S.T @ C2, S.T @ D2 @ S
    Dn_inv = np.linalg.inv(0.5 * (Dn + Dn.T))
    schur = A2 - Bn @ Dn_inv @ Cn
    if _nonsingular_on_box(schur, _rounding_bound(A2, B2, C2, D2, S, Dn_inv), blk2):
        return "proved", None, ""
    # a refutation needs only a direction where the value turns singular (the evidence
    # is the value evaluated there): the lower-bound search alone
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RobustMBWarning)
        lows, deltas = lower_bound(schur[None].astype(complex), BlockStructure(blk2))
    low, delta = float(lows[0]), deltas[0]
    why = (
        "mu of the loop that makes the value singular (A - B D^-1 C) is not proved below 1 "
        f"(lower bound {low:.4g})"
    )
    if low > 1.0 and delta is not None:
        # delta makes the value singular at 1/lower of the box; the first crossing from
        # the (definite) centre along that ray: beyond it the value is indefinite
        starts = (
            np.cumsum([0] + [2 * r for r in reps[:-1]])
            if D.shape[0] > 1
            else np.cumsum([0] + reps[:-1])
        )
        dvec = np.array([float(np.real(delta[s, s])) for s in starts])
        ts = 1.0 + (low - 1.0) * np.array([1e-3, 1e-2, 0.1, 0.3, 0.6, 1.0])
        points = [centre + half * np.clip(t * dvec, -1.0, 1.0) for t in ts]
        values = _evaluate(model, elements, names, points)
        mins = [np.linalg.eigvalsh(0.5 * (v + v.T))[0] for v in values]
        i = int(np.argmin(mins))
        if mins[i] < -tiny:
            return "refuted", (_label("the point", names, points[i]), values[i]), ""
        why += "; the value is not negative along the ray to its singular point"
    return "undecided", None, why


def _acyclic(A):
    """True if the graph of the nonzero entries of ``A`` has no cycle.

    Then ``A Delta`` is nilpotent (strictly triangular after a permutation) for every
    diagonal ``Delta``, so ``det(I - A Delta) = 1``: the LFT is well posed everywhere
    (the loop of a product of ureals, ``m L L``, is of this kind).
    """
    live = np.ones(A.shape[0], dtype=bool)
    nz = A != 0
    while live.any():
        # drop the nodes with no edge into them from a live node
        src = ~(nz[np.ix_(live, live)].any(axis=0))
        if not src.any():
            return False
        idx = np.flatnonzero(live)
        live[idx[src]] = False
    return True


def _nonsingular_on_box(schur, bound, blk):
    """True if ``det(I - (schur + E) Delta) != 0`` on the box for every ``|E| <= bound``.

    The determinant is the product of those of the diagonal blocks of the strongly
    connected components of the pattern of ``|schur| + bound`` (a block-triangular
    form).  A component of one channel is nonsingular iff ``|m| + e < 1``; a larger one
    iff ``mu < 1`` for the component's own repeated scalars, with its rounding ``E``
    as a full block (:func:`_proves_augmented`).
    """
    sizes = [-r for r, _ in blk]
    owner = np.repeat(np.arange(len(sizes)), sizes)
    pattern = (schur != 0) | (bound > 0)
    ncomp, label = connected_components(pattern, directed=True, connection="strong")
    for c in range(ncomp):
        idx = np.flatnonzero(label == c)
        if idx.size == 1:
            i = idx[0]
            if not abs(schur[i, i]) + bound[i, i] < 1.0:
                return False
            continue
        idx = idx[np.argsort(owner[idx], kind="stable")]  # each element's channels together
        sub = schur[np.ix_(idx, idx)]
        sub_blk = [(-int(np.sum(owner[idx] == k)), 0) for k in np.unique(owner[idx])]
        n = idx.size
        # the Frobenius norm bounds the 2-norm; the factor covers the rounding of both
        s = np.sqrt(float(np.linalg.norm(bound[np.ix_(idx, idx)]))) * (1.0 + 1e-12)
        # E enters as a full block: det(I - (sub + E) Delta) != 0 for all ||E|| <= s^2
        # iff mu < 1 for diag(Delta, E / s^2) around [[sub, s I], [s I, 0]]
        aug = np.block([[sub, s * np.eye(n)], [s * np.eye(n), np.zeros((n, n))]])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RobustMBWarning)
            quick = mussv_stack(sub[None], sub_blk, lower=False, target=_TARGET)
            if not quick.upper[0] < 1.0:
                return False
            if not _proves_augmented(quick, aug, sub_blk):
                # the scalings of a nearly triangular complement can be too extreme to
                # carry over: bound mu of the augmented matrix itself
                full = mussv_stack(aug[None], [*sub_blk, (n, n)], lower=False, target=_TARGET)
                if not full.upper[0] < 1.0:
                    return False
    return True


def _proves_augmented(res, aug, blk):
    """True if the certificate ``res`` of the Schur complement, extended, proves ``mu(aug) < 1``.

    ``aug`` is the complement with its rounding block (a full block after the ``blk``
    ones).  The certificate's scalings are extended by ``d I`` on the full block and
    checked on ``aug`` by :func:`~robustmb.analysis.mu_upper.verify_upper_bound` with no
    slack (a proof, rounding included), at the bound itself and halfway to 1.
    """
    beta0 = float(np.max(res.upper))
    if not beta0 < 1.0:
        return False
    n = aug.shape[0] // 2
    Dl, Dr = (np.reshape(X, (n, n)) for X in res.scalings()[:2])
    G = np.reshape(res.G, (n, n))
    d = np.sqrt(np.linalg.norm(Dl, 2) * np.linalg.norm(np.linalg.inv(Dr), 2))
    D_aug = np.zeros((2 * n, 2 * n), dtype=complex)
    D_aug[:n, :n], D_aug[n:, n:] = Dl, d * np.eye(n)
    G_aug = np.zeros((2 * n, 2 * n), dtype=complex)
    G_aug[:n, :n] = G
    full = [*blk, (n, n)]
    return any(
        bool(verify_upper_bound(aug, full, beta, D_aug, G_aug, tol=0.0))
        for beta in (beta0 * (1 + 1e-9), 0.5 * (1.0 + beta0))
        if beta < 1.0
    )


def _rounding_bound(A2, B2, C2, D2, S, Dn_inv):
    """An entrywise bound on the rounding error of the computed Schur complement.

    The exact complement ``A2 - B2 D2^-1 C2`` does not depend on ``S``; the computed one
    differs by ``E`` with, to first order, ``|E| <= gamma (|A2| + 3 P + Q)`` entrywise,
    ``P = |B2| |S| |Dn^-1| |S|^T |C2|`` (the outer products), ``Q`` the same with
    ``|S|^T |D2| |S| |Dn^-1|`` inserted (the inverse of the centre value) and
    ``gamma = 10 k eps`` for the largest inner dimension ``k``.  An entry that is an
    exact zero of every product is an exact zero of the computed complement.
    """
    bs, sc = np.abs(B2) @ np.abs(S), np.abs(S).T @ np.abs(C2)
    di = np.abs(Dn_inv)
    mid = np.abs(S).T @ np.abs(D2) @ np.abs(S)
    k = max(A2.shape[0], S.shape[0], 1)
    return 10 * k * _EPS * (np.abs(A2) + 3 * bs @ di @ sc + bs @ di @ mid @ di @ sc)


def _symmetric_part(A, B, C, D, reps):
    """LFT ``(A2, B2, C2, D2, blk2)`` of ``(J + J^T) / 2`` from that of ``J``.

    ``J^T = D^T + B^T Delta (I - A^T Delta)^-1 C^T`` (Delta diagonal), so the symmetric
    part closes ``diag(Delta, Delta)`` around ``diag(A, A^T)``; the two copies of each
    element's channels are put side by side (one repeated block).  A scalar is its own
    symmetric part.
    """
    if D.shape[0] == 1:
        return A, B, C, D, [(-r, 0) for r in reps]
    nw = A.shape[0]
    order, start = [], 0
    for r in reps:
        order += list(range(start, start + r)) + list(range(nw + start, nw + start + r))
        start += r
    A2 = np.zeros((2 * nw, 2 * nw))
    A2[:nw, :nw], A2[nw:, nw:] = A, A.T
    A2 = A2[np.ix_(order, order)]
    B2 = np.vstack([B, C.T])[order]
    C2 = 0.5 * np.hstack([C, B.T])[:, order]
    return A2, B2, C2, 0.5 * (D + D.T), [(-2 * r, 0) for r in reps]
