"""Tunable real parameters: the design variables of structured controller tuning.

A :class:`realp` is an element of the same LFT ``Delta`` structure as ``ureal``:
it combines with numbers, systems and uncertain elements through the same operators
and ``connect``, and an object built from it lists it in ``X.tunables``.  It is not
uncertain: ``nominal()`` and ``usample()`` leave it free, and the uncertainty
analyses (``robstab``, ``wcgain``, ...) refuse a model whose tunables are still free.

Convention: a scalar realp enters ``Delta`` as ``delta = value - value0`` (its
initial value: the LFT's centre, with unit scale; its bounds may be infinite, so there
is no normalisation); a matrix realp is one full real block ``w = Theta z``.
"""

from __future__ import annotations

import numpy as np

from ..errors import ArgumentError, DimensionError, UncertainElementError
from ..lft.elements import UncertainElement
from ..lft.model import UncertainMatrix
from ..lft.realization import make_realization


def _check_tunable_name(name) -> str:
    # Dotted names ("C.Kp") name the parameters of a tunable block.
    if not isinstance(name, str) or not all(p.isidentifier() for p in name.split(".")):
        raise UncertainElementError(
            f"a tunable parameter's name must be an identifier or dotted identifiers, got {name!r}"
        )
    return name


def _bound(name, what, bound, shape, default):
    if bound is None:
        return np.full(shape, default)
    try:
        b = np.asarray(bound, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError(f"realp '{name}': {what} must be numeric, got {bound!r}") from None
    try:
        b = np.broadcast_to(b, shape).copy()
    except ValueError:
        raise UncertainElementError(
            f"realp '{name}': {what} of shape {b.shape} does not match the value's shape {shape}"
        ) from None
    if np.any(np.isnan(b)):
        raise UncertainElementError(f"realp '{name}': {what} must not be NaN")
    return b


def _free_mask(name, free, shape):
    f = np.asarray(free)
    if f.dtype != bool:
        raise ArgumentError(
            f"realp '{name}': free must be a bool or an array of bools, got {free!r}"
        )
    try:
        return np.broadcast_to(f, shape).copy()
    except ValueError:
        raise DimensionError(
            f"realp '{name}': free of shape {f.shape} does not match the value's shape {shape}"
        ) from None


class realp(UncertainElement):
    """Tunable real parameter, scalar or matrix, with optional bounds.

    Parameters
    ----------
    name : str
        Identifier (dotted identifiers such as ``"C.Kp"`` are allowed).
    value : float or array_like
        Initial (current) value; a 1-D array is a row.
    minimum, maximum : float or array_like, optional
        Bounds (broadcast to the value's shape); default unbounded.
    free : bool or array_like of bool, optional
        Which entries are tuned; fixed entries keep their value (default all free).

    Examples
    --------
    >>> import robustmb as rmb
    >>> k = rmb.realp("k", 2.0, minimum=0.0)
    >>> G = rmb.ureal("g", 1.0, percent=10)
    >>> X = rmb.umat([[k * G]])
    >>> sorted(X.tunables), sorted(X.uncertainty)
    (['k'], ['g'])
    >>> X.usubs({"k": 3.0, "g": 1.0})
    array([[3.]])
    """

    tunable = True

    def __init__(self, name, value, *, minimum=None, maximum=None, free=True):
        self.name = _check_tunable_name(name)
        val = np.asarray(value)
        # a bool is no number to tune (realp('k', True) is most likely a misplaced flag)
        if val.dtype == object or val.dtype == bool or not np.issubdtype(val.dtype, np.number):
            raise UncertainElementError(f"realp '{name}': value must be numeric, got {value!r}")
        if np.iscomplexobj(val):
            raise UncertainElementError(f"realp '{name}': value must be real")
        val = val.astype(float)
        if val.ndim == 1:
            val = val.reshape(1, -1)
        if val.ndim > 2 or val.size == 0:
            raise UncertainElementError(
                f"realp '{name}': value must be a scalar or a non-empty matrix, got shape "
                f"{val.shape}"
            )
        if not np.all(np.isfinite(val)):
            raise UncertainElementError(f"realp '{name}': value must be finite")
        self.value = val
        self.minimum = _bound(name, "minimum", minimum, val.shape, -np.inf)
        self.maximum = _bound(name, "maximum", maximum, val.shape, np.inf)
        if np.any(self.minimum == np.inf) or np.any(self.maximum == -np.inf):
            raise UncertainElementError(
                f"realp '{name}': a minimum of +inf or a maximum of -inf admits no finite "
                "value (leave a bound out, or give None, for no bound)"
            )
        if np.any(self.minimum > self.maximum):
            raise UncertainElementError(f"realp '{name}': minimum exceeds maximum")
        if np.any(val < self.minimum) or np.any(val > self.maximum):
            raise UncertainElementError(
                f"realp '{name}': value {val.tolist()} lies outside its bounds"
            )
        self.free = _free_mask(name, free, val.shape)
        self.center = float(val) if val.ndim == 0 else 0.0
        if val.ndim == 0:
            self.kind = "real"
            self.block_shape = (1, 1)
        else:
            self.kind = "realmatrix"
            self.shape = val.shape
            self.block_shape = val.shape
            self.bound = 1.0

    # -- the ureal-like interface used by substitution (no normalisation) ----------
    half_width = 1.0

    @property
    def nominal(self):
        """The current value (a tunable has no uncertainty)."""
        return float(self.value) if self.value.ndim == 0 else self.value.copy()

    @property
    def range(self):
        return (float(self.minimum), float(self.maximum)) if self.value.ndim == 0 else None

    @property
    def is_scalar(self) -> bool:
        return self.value.ndim == 0

    @property
    def nfree(self) -> int:
        """Number of free (tuned) entries."""
        return int(self.free.sum())

    def normalize(self, value):
        value = np.asarray(value)
        if np.iscomplexobj(value) and np.any(np.imag(value) != 0):
            raise UncertainElementError(f"realp '{self.name}' cannot take a complex value")
        value = np.real(value).astype(float)
        if not np.all(np.isfinite(value)):
            raise UncertainElementError(f"value of realp '{self.name}' must be finite")
        return value - self.center

    def denormalize(self, delta):
        return self.center + np.asarray(delta, dtype=float)

    def sample_normalized(self, rng, n):
        raise UncertainElementError(f"realp '{self.name}' is tunable and is never sampled")

    def _definition(self):
        return (
            "tunable",
            self.value.shape,
            self.value.tobytes(),
            self.minimum.tobytes(),
            self.maximum.tobytes(),
            self.free.tobytes(),
        )

    def _to_model(self):
        if self.value.ndim == 0:
            d = np.array([[0.0, 1.0], [1.0, self.center]])
            nu = ny = 1
        else:
            ny, nu = self.value.shape
            d = np.block([[np.zeros((nu, ny)), np.eye(nu)], [np.eye(ny), np.zeros((ny, nu))]])
        real = make_realization(
            np.zeros((0, 0)),
            np.zeros((0, ny + nu)),
            np.zeros((nu + ny, 0)),
            d,
            {self.name: (self, 1)},
        )
        outs = [self.name] if ny == 1 else [f"{self.name}[{i}]" for i in range(ny)]
        return UncertainMatrix(real, output_names=outs, name=self.name)

    def __repr__(self):
        v = float(self.value) if self.value.ndim == 0 else self.value.tolist()
        return f"realp({self.name!r}, {v!r})"
