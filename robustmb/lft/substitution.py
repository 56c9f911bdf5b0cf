"""Substituting values for uncertain elements: nominal, usubs, usample.

Static values close the Delta channels of their blocks exactly
(:func:`~.realization.close_delta`); sampling is vectorised over samples with
batched solves.  Dynamic values (an ``ultidyn`` replaced by a system) and
uncertain values are closed with an upper LFT.
"""

from __future__ import annotations

import copy
import numbers

import control
import numpy as np

from ..errors import (
    ArgumentError,
    DimensionError,
    IllPosedError,
    SignalError,
    UncertainElementError,
    UncertainTypeError,
)
from . import realization as rz
from .algebra import block_diag, lft_upper
from .complex_statespace import ComplexStateSpace
from .delta import normalized_block
from .elements import UncertainElement
from .model import UncertainModel, UncertainSystem, as_model, lti_model, unique_names


def nominal_values(elements: dict) -> dict:
    """``{name: nominal value}`` of the given elements."""
    return {name: el.nominal for name, el in elements.items()}


def output_of(model: UncertainModel, real: rz.Realization):
    """Array (static) or state-space model (system) of a block-free realization."""
    if model.is_system:
        return statespace(model, real.a, real.b, real.c, real.d)
    return real.d.copy()


def statespace(model: UncertainModel, a, b, c, d):
    """``control.StateSpace``, or :class:`ComplexStateSpace` for complex coefficients."""
    dt = 0 if model.dt is None else model.dt
    mats = (a, b, c, d)
    # python-control keeps one label per name: repeated names are made unique.
    ins, outs = unique_names(model.input_names), unique_names(model.output_names)
    if any(np.iscomplexobj(m) and np.any(m.imag != 0) for m in mats):
        return ComplexStateSpace(a, b, c, d, dt, inputs=ins, outputs=outs, name=model.name)
    a, b, c, d = (np.real(m) for m in mats)
    return control.StateSpace(a, b, c, d, dt, inputs=ins, outputs=outs, name=model.name)


def _check_known(model, values):
    if not isinstance(values, dict):
        raise UncertainTypeError(f"usubs expects a dict {{name: value}}, got {type(values)}")
    unknown = [n for n in values if n not in model._real.blocks]
    if unknown:
        raise SignalError(
            f"{model.name!r} has no uncertain element named {unknown}; it has {list(model.blocks)}"
        )


def usubs(model: UncertainModel, values: dict):
    """Substitute ``{name: value}`` into an uncertain object (see ``UncertainModel.usubs``)."""
    model = as_model(model)
    _check_known(model, values)
    real = model._real
    static, other = {}, {}
    for name, value in values.items():
        el, reps = real.blocks[name]
        if isinstance(value, control.LTI | UncertainModel | UncertainElement) or hasattr(
            value, "_to_model"
        ):
            other[name] = value
        else:
            static[name] = normalized_block(el, reps, value)
    if static:
        real = rz.close_delta(real, set(static), static)
    result = model._like(
        real,
        dt=model.dt,
        input_names=model.input_names,
        output_names=model.output_names,
        name=model.name,
    )
    for name, value in other.items():
        result = _substitute_model(result, name, value)
    if not result._real.blocks:
        return output_of(result, result._real)
    return result


def _substitute_model(model: UncertainModel, name: str, value) -> UncertainModel:
    """Replace element ``name`` by an uncertain object or an LTI system (upper LFT)."""
    real = model._real
    el, reps = real.blocks[name]
    v = lti_model(value) if isinstance(value, control.LTI) else as_model(value)
    if v.shape != el.block_shape:
        raise UncertainElementError(
            f"value for '{name}' must have shape {el.block_shape}, got {v.shape}"
        )
    # Normalise: delta = (value - center) / scale for scalars, value / bound for LTI blocks.
    if el.kind == "real":
        v = (v - el.center) * (1.0 / el.half_width)
    elif el.kind == "complex":
        v = (v - el.nominal) * (1.0 / el.radius)
    else:
        v = v * (1.0 / el.bound)
    # The element's channels become the first external inputs/outputs of a model
    # holding the other blocks; an upper LFT with I_reps kron v then closes them.
    slices = {n: (ws, zs) for n, _, _, ws, zs in real.block_slices()}
    ws, zs = slices[name]
    nw, nz = real.nw, real.nz
    rest_w = [i for i in range(nw) if not ws.start <= i < ws.stop]
    rest_z = [i for i in range(nz) if not zs.start <= i < zs.stop]
    cols = np.r_[rest_w, ws.start : ws.stop, nw : real.b.shape[1]].astype(int)
    rows = np.r_[rest_z, zs.start : zs.stop, nz : real.c.shape[0]].astype(int)
    rest = {n: real.blocks[n] for n in real.blocks if n != name}
    inner_real = rz.make_realization(
        real.a, real.b[:, cols], real.c[rows], real.d[np.ix_(rows, cols)], rest
    )
    cls = UncertainSystem if model.is_system or v.is_system else type(model)
    inner = cls(
        inner_real,
        dt=model.dt,
        input_names=[f"w_{name}[{i}]" for i in range(ws.stop - ws.start)] + model.input_names,
        output_names=[f"z_{name}[{i}]" for i in range(zs.stop - zs.start)] + model.output_names,
        name=model.name,
    )
    delta = block_diag(*([v] * reps)) if reps > 1 else v
    out = lft_upper(inner, delta)
    out.input_names, out.output_names, out.name = model.input_names, model.output_names, model.name
    return out


def _sample_values(model, n, rng):
    """Normalised samples of every element, and the physical values.

    Scalars: arrays of ``n`` normalised values.  ``ultidyn``: a batch of stable
    first-order all-pass systems times a random contraction (see
    :func:`_ltidyn_batch`), in normalised units (peak gain <= 1).
    """
    elements = model.uncertainty
    norm, dyn = {}, {}
    for name, el in elements.items():
        if el.kind == "ltidyn":
            dyn[name] = _ltidyn_batch(el, rng, n, model.dt)
        else:
            norm[name] = el.sample_normalized(rng, n)
    columns = {}
    for name, el in elements.items():
        if el.kind == "ltidyn":
            ad, bd, cd, dd = dyn[name]
            dt = 0 if model.dt in (None, 0) else model.dt
            columns[name] = [
                control.ss(ad[i], bd[i], el.bound * cd[i], el.bound * dd[i], dt) for i in range(n)
            ]
        else:
            # Denormalise a whole column at once; tolist() gives Python numbers.
            columns[name] = el.denormalize(norm[name]).tolist()
    phys = [dict(zip(columns, row, strict=True)) for row in zip(*columns.values(), strict=True)]
    return norm, dyn, phys


def _ltidyn_batch(el, rng, n, dt):
    """``n`` normalised samples ``(A, B, C, D)`` of an ultidyn, each of peak gain <= 1.

    A sample is a first-order all-pass ``(a - s)/(a + s)`` (continuous) or
    ``(1 - a z)/(z - a)`` (discrete) times a random contraction ``Q`` with
    ``||Q|| = U(0, 1)``, realised with ``k = min(p, m)`` states through the SVD
    of ``Q``: the peak gain is exactly ``||Q||``.
    """
    p, m = el.shape
    k = min(p, m)
    q = rng.standard_normal((n, p, m))
    norms = np.linalg.norm(q, 2, axis=(1, 2))
    q *= (rng.uniform(0.0, 1.0, n) / norms)[:, None, None]
    u, sv, vh = np.linalg.svd(q, full_matrices=False)
    b = sv[:, :, None] * vh
    eye = np.eye(k)[None]
    if dt in (None, 0):
        a0 = 10 ** rng.uniform(-1, 1, n)
        return -a0[:, None, None] * eye, b, 2 * a0[:, None, None] * u, -q
    a0 = rng.uniform(-0.9, 0.9, n)
    return a0[:, None, None] * eye, b, (1 - a0**2)[:, None, None] * u, -a0[:, None, None] * q


def _dynamic_substitute(model, norm, dyn):
    """Close every block with its sample at once: scalars static, ultidyn dynamic (batched).

    With ``w = Cd xd + Dd z`` and ``xd' = Ad xd + Bd z`` for the block-diagonal
    normalised samples, ``z = E (Cz x + Dzw Cd xd + Dzu u)`` with
    ``E = (I - Dzw Dd)^-1``; the states of the result are ``[x; xd]``.
    """
    real = model._real
    n = len(next(iter(dyn.values()))[0])
    nw, nz, nx = real.nw, real.nz, real.nx
    # Block-diagonal sample matrices over all blocks, in channel order.
    nxd = sum(r * dyn[name][0].shape[1] for name, _, r, _, _ in real.block_slices() if name in dyn)
    dtype = np.result_type(real.d, *norm.values()) if norm else real.d.dtype
    ad = np.zeros((n, nxd, nxd))
    bd = np.zeros((n, nxd, nz))
    cd = np.zeros((n, nw, nxd))
    dd = np.zeros((n, nw, nz), dtype=dtype)
    ix = 0
    for name, el, reps, ws, zs in real.block_slices():
        if name in dyn:
            sa, sb, sc, sd = dyn[name]
            k = sa.shape[1]
            p, m = el.block_shape
            for r in range(reps):
                xs = slice(ix, ix + k)
                wr = slice(ws.start + r * p, ws.start + (r + 1) * p)
                zr = slice(zs.start + r * m, zs.start + (r + 1) * m)
                ad[:, xs, xs], bd[:, xs, zr], cd[:, wr, xs], dd[:, wr, zr] = sa, sb, sc, sd
                ix += k
        else:
            # a scalar's w and z channels are paired in order; their indices differ
            # after a non-square block
            dd[:, np.arange(ws.start, ws.stop), np.arange(zs.start, zs.stop)] = norm[name][:, None]
    bw, bu = real.b[:, :nw], real.b[:, nw:]
    cz, cy = real.c[:nz], real.c[nz:]
    dzw, dzu, dyw, dyu = real.d[:nz, :nw], real.d[:nz, nw:], real.d[nz:, :nw], real.d[nz:, nw:]
    loop = np.eye(nz)[None] - dzw[None] @ dd
    rhs = np.concatenate(
        [
            np.broadcast_to(cz, (n, *cz.shape)),
            dzw[None] @ cd,
            np.broadcast_to(dzu, (n, *dzu.shape)),
        ],
        axis=2,
    )
    try:
        ez = np.linalg.solve(loop, rhs)  # E [Cz, Dzw Cd, Dzu]
    except np.linalg.LinAlgError:
        raise IllPosedError(
            f"{model.name!r} is ill-posed at one of the sampled values of {list(real.blocks)}"
        ) from None
    w = dd @ ez  # Dd E [Cz, Dzw Cd, Dzu]
    w[:, :, nx : nx + nxd] += cd
    z = bd @ ez  # Bd E [...]
    a = np.concatenate(
        [
            np.concatenate(
                [real.a[None] + bw[None] @ w[:, :, :nx], bw[None] @ w[:, :, nx : nx + nxd]], 2
            ),
            np.concatenate([z[:, :, :nx], ad + z[:, :, nx : nx + nxd]], 2),
        ],
        axis=1,
    )
    b = np.concatenate([bu[None] + bw[None] @ w[:, :, nx + nxd :], z[:, :, nx + nxd :]], axis=1)
    c = np.concatenate([cy[None] + dyw[None] @ w[:, :, :nx], dyw[None] @ w[:, :, nx : nx + nxd]], 2)
    d = dyu[None] + dyw[None] @ w[:, :, nx + nxd :]
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(d))):
        raise IllPosedError(f"{model.name!r} is ill-posed at one of the sampled values")
    return [statespace(model, a[i], b[i], c[i], d[i]) for i in range(n)]


def _checked_seed(seed):
    """A seed ``numpy.random.default_rng`` takes, else an error naming ``seed``.

    ``None``, a non-negative integer, a sequence of them, a ``Generator``,
    ``BitGenerator`` or ``SeedSequence``.

    Examples
    --------
    >>> _checked_seed(3)
    3
    """

    def natural(x):
        return not isinstance(x, bool) and isinstance(x, numbers.Integral) and x >= 0

    if (
        seed is None
        or isinstance(seed, np.random.Generator | np.random.BitGenerator | np.random.SeedSequence)
        or natural(seed)
        or (isinstance(seed, list | tuple) and seed and all(natural(x) for x in seed))
    ):
        return seed
    raise ArgumentError(
        f"usample: seed must be None, a non-negative integer or a numpy Generator, got {seed!r}"
    )


def usample(model: UncertainModel, n: int, *, seed=None):
    """Random samples substituted into ``model`` (see ``UncertainModel.usample``)."""
    model = as_model(model)
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise DimensionError(
            f"usample: the number of samples n must be a positive integer, got {n!r}"
        )
    rng = np.random.default_rng(_checked_seed(seed))
    if not model._real.blocks:
        # Nothing uncertain: n copies of the certain value, as requested.
        value = output_of(model, model._real)
        return [value] + [_copy(value) for _ in range(int(n) - 1)], [{} for _ in range(int(n))]
    norm, dyn, phys = _sample_values(model, int(n), rng)
    if model.tunables:
        # Tunable parameters are design variables, never sampled: they stay free.
        return [usubs(model, v) for v in phys], phys
    if dyn:
        return _dynamic_substitute(model, norm, dyn), phys
    return batched_substitute(model, norm), phys


def batched_substitute(model: UncertainModel, normalized: dict):
    """Substitute arrays of normalised scalar values (one per sample), vectorised.

    ``normalized[name]`` has shape ``(n,)``; every element must be scalar.
    Returns a list of ``n`` arrays or state-space models.
    """
    real = model._real
    n = len(next(iter(normalized.values()))) if normalized else 1
    nw, nz = real.nw, real.nz
    # Diagonal Delta per sample: w = diag(deltas) z.
    diag = np.empty(
        (n, nw), dtype=np.result_type(float, *normalized.values()) if normalized else float
    )
    for name, _, reps, ws, _ in real.block_slices():
        diag[:, ws] = np.repeat(normalized[name][:, None], reps, axis=1)
    dtype = np.result_type(real.d, diag)
    bw, bu = real.b[:, :nw], real.b[:, nw:]
    cz, cy = real.c[:nz], real.c[nz:]
    dzw, dzu, dyw, dyu = real.d[:nz, :nw], real.d[:nz, nw:], real.d[nz:, :nw], real.d[nz:, nw:]
    # (I - Dzw Delta) w-loop: solve for [Cz Dzu] once per sample in a batch.
    loop = np.eye(nz, dtype=dtype)[None] - dzw[None] * diag[:, None, :]
    rhs = np.broadcast_to(np.hstack([cz, dzu]).astype(dtype), (n, nz, cz.shape[1] + dzu.shape[1]))
    try:
        sol = np.linalg.solve(loop, rhs) if nz else rhs
    except np.linalg.LinAlgError:
        raise IllPosedError(
            f"{model.name!r} is ill-posed at one of the sampled values of {list(real.blocks)}"
        ) from None
    # w = Delta (I - Dzw Delta)^-1 [Cz Dzu] [x; u]
    wmap = diag[:, :, None] * sol
    nx = real.nx
    a = real.a[None] + np.einsum("ij,sjk->sik", bw, wmap[:, :, :nx])
    b = bu[None] + np.einsum("ij,sjk->sik", bw, wmap[:, :, nx:])
    c = cy[None] + np.einsum("ij,sjk->sik", dyw, wmap[:, :, :nx])
    d = dyu[None] + np.einsum("ij,sjk->sik", dyw, wmap[:, :, nx:])
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(d))):
        raise IllPosedError(f"{model.name!r} is ill-posed at one of the sampled values")
    if model.is_system:
        return [statespace(model, a[i], b[i], c[i], d[i]) for i in range(n)]
    return [d[i] for i in range(n)]


def _copy(value):
    return value.copy() if isinstance(value, np.ndarray) else copy.copy(value)


def usubs_of(x, values=None, /, *pairs):
    """Substitute values for uncertain elements (MATLAB ``usubs``).

    Parameters
    ----------
    x : uncertain object
        Uncertain matrix or system (or an expression of elements).
    values : dict or str
        ``{name: value}``, or a name followed by its value and further
        name/value pairs as in MATLAB: ``usubs(X, "a", 1.0, "b", 2.0)``.

    Returns
    -------
    numpy.ndarray, control.StateSpace or UncertainModel
        See :meth:`UncertainModel.usubs`.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0)
    >>> rmb.usubs(3 * a, {"a": 2.0})
    array([[6.]])
    >>> rmb.usubs(3 * a, "a", 0.5)
    array([[1.5]])
    """
    if isinstance(values, str):
        flat = (values, *pairs)
        if len(flat) % 2:
            raise SignalError(
                f"usubs: name/value arguments come in pairs, got {len(flat)} arguments"
            )
        values = dict(zip(flat[::2], flat[1::2], strict=True))
    elif pairs:
        raise UncertainTypeError("usubs: give a dict {name: value} or name, value pairs")
    if values is None:
        raise UncertainTypeError("usubs: give the values as a dict {name: value}")
    return usubs(as_model(x), values)


def usample_of(x, n=1, *, seed=None):
    """Random samples of an uncertain object (MATLAB ``usample``).

    Parameters
    ----------
    x : uncertain object
    n : int, optional
        Number of samples.
    seed : int or numpy.random.Generator, optional

    Returns
    -------
    samples, values
        See :meth:`UncertainModel.usample`.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 1.0, range=(0.0, 2.0))
    >>> samples, values = rmb.usample(2 * a, 4, seed=1)
    >>> len(samples), bool(abs(samples[0][0, 0] - 2 * values[0]["a"]) < 1e-12)
    (4, True)
    """
    return usample(as_model(x), n, seed=seed)
