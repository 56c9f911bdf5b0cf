"""The map from tunable parameters to closed-loop state-space data, and its derivative.

A model whose only Delta blocks are tunable parameters is ``Fu(M, Theta)``: with the
realization ``[x'; z; y] = [[A, Bw, Bu], [Cz, Dzw, Dzu], [Cy, Dyw, Dyu]] [x; w; u]`` and
``w = Theta z``, its state-space matrices are::

    S(Theta) = [[A, Bu], [Cy, Dyu]] + [Bw; Dyw] Theta (I - Dzw Theta)^-1 [Cz, Dzu]

and a first-order change of ``Theta`` changes them by ``Bt dTheta Ct`` with
``Bt = [Bw; Dyw] (I - Theta Dzw)^-1`` and ``Ct = (I - Dzw Theta)^-1 [Cz, Dzu]``.
Any function ``J`` of the state-space data whose (sub)gradient ``G = dJ/dS`` is
known (H-infinity norm at its peak, H2 norm, a pole) therefore has the gradient
``Bt^T G Ct^T`` with respect to ``Theta``, summed over the entries each parameter
occupies.  This is exact (no finite differences).
"""

from __future__ import annotations

import numpy as np

from ..errors import IllPosedError, UncertainTypeError
from ..lft.model import as_model


class ParameterVector:
    """The free entries of a set of tunable parameters, as one real vector.

    Parameters
    ----------
    tunables : dict
        ``{name: realp}``, in the order the vector follows (each parameter's free
        entries in row-major order).

    Examples
    --------
    >>> import numpy as np
    >>> import robustmb as rmb
    >>> pv = ParameterVector({"K": rmb.realp("K", np.zeros((1, 2))), "k": rmb.realp("k", 3.0)})
    >>> pv.size, pv.initial().tolist()
    (3, [0.0, 0.0, 3.0])
    >>> pv.values(np.array([1.0, 2.0, 4.0]))["K"].tolist()
    [[1.0, 2.0]]
    >>> fixed = ParameterVector({"k": rmb.realp("k", 1.0, free=False), "m": rmb.realp("m", 2.0)})
    >>> fixed.size, fixed.values(fixed.initial())
    (1, {'k': 1.0, 'm': 2.0})
    """

    def __init__(self, tunables: dict):
        self.tunables = dict(tunables)
        self.offsets = {}
        k = 0
        for name, el in self.tunables.items():
            self.offsets[name] = k
            k += el.nfree
        self.size = k
        # A boolean mask on a 0-d array selects its entry (or nothing when fixed), as
        # for a matrix: scalar and matrix parameters share one rule.
        lo = [np.asarray(el.minimum)[el.free].ravel() for el in self.tunables.values()]
        hi = [np.asarray(el.maximum)[el.free].ravel() for el in self.tunables.values()]
        self.lower = np.concatenate(lo).astype(float) if lo else np.zeros(0)
        self.upper = np.concatenate(hi).astype(float) if hi else np.zeros(0)

    def initial(self) -> np.ndarray:
        """The parameters' current values (their free entries) as a vector."""
        parts = [el.value[el.free].ravel() for el in self.tunables.values()]
        return np.concatenate(parts).astype(float) if parts else np.zeros(0)

    def values(self, theta) -> dict:
        """``{name: value}`` (floats or arrays, fixed entries kept) for a vector."""
        out = {}
        for name, el in self.tunables.items():
            k = self.offsets[name]
            if el.value.ndim == 0:
                out[name] = float(theta[k]) if el.nfree else float(el.value)
            else:
                v = el.value.copy()
                v[el.free] = theta[k : k + el.nfree]
                out[name] = v
        return out

    def within_bounds(self, theta) -> bool:
        return bool(np.all(theta >= self.lower) and np.all(theta <= self.upper))


class TunableLFT:
    """State-space data of a model as a function of its tunable parameters.

    Parameters
    ----------
    model : UncertainModel
        A model whose Delta blocks are all tunable parameters (substitute or sample the
        uncertain ones first).
    params : ParameterVector
        The parameter vector; it may hold parameters the model does not use.

    Examples
    --------
    >>> import numpy as np, control
    >>> import robustmb as rmb
    >>> k = rmb.realp("k", 1.0)
    >>> G = rmb.feedback(rmb.uss(control.tf([1], [1, 1])) * k, 1.0)
    >>> lft = TunableLFT(G, ParameterVector(G.tunables))
    >>> a, b, c, d = lft.statespace(np.array([3.0]))
    >>> float(a[0, 0])
    -4.0
    """

    def __init__(self, model, params: ParameterVector):
        m = as_model(model)
        if m.uncertainty:
            raise UncertainTypeError(
                f"{m.name!r} still has uncertain elements {sorted(m.uncertainty)}; substitute "
                "or sample them before tuning"
            )
        r = m._real
        nw, nz, nx = r.nw, r.nz, r.nx
        self.model = m
        self.dt = 0.0 if m.dt in (None, 0) else float(m.dt)
        self.nx, self.nw, self.nz = nx, nw, nz
        self.nu, self.ny = r.nu, r.ny
        self.a0 = np.block([[r.a, r.b[:, nw:]], [r.c[nz:], r.d[nz:, nw:]]])
        self.left = np.vstack([r.b[:, :nw], r.d[nz:, :nw]])  # [Bw; Dyw]
        self.right = np.hstack([r.c[:nz], r.d[:nz, nw:]])  # [Cz, Dzu]
        self.dzw = r.d[:nz, :nw]
        # Positions of every parameter entry in Theta: Theta[wi, zi] = theta[k] - center.
        wi, zi, ki, centre = [], [], [], []
        self.theta0 = np.zeros((nw, nz))
        for name, el, reps, ws, zs in r.block_slices():
            if name not in params.tunables:
                raise UncertainTypeError(f"tunable '{name}' is not in the parameter vector")
            p, q = el.block_shape
            k0 = params.offsets[name]
            val = np.atleast_2d(el.value) - el.center
            free = np.atleast_2d(el.free)
            idx = np.full((p, q), -1)
            idx[free] = np.arange(k0, k0 + int(free.sum()))
            for t in range(reps):
                rows = ws.start + t * p + np.arange(p)
                cols = zs.start + t * q + np.arange(q)
                self.theta0[np.ix_(rows, cols)] = np.where(free, 0.0, val)
                ii, jj = np.nonzero(free)
                wi.append(rows[ii])
                zi.append(cols[jj])
                ki.append(idx[ii, jj])
                centre.append(np.full(len(ii), el.center))
        cat = lambda xs: np.concatenate(xs) if xs else np.zeros(0, int)  # noqa: E731
        self.wi, self.zi, self.ki = cat(wi), cat(zi), cat(ki)
        self.centre = cat(centre).astype(float) if centre else np.zeros(0)
        self.nparams = params.size
        # theta-gradient = (Theta-gradient at the parameter positions) @ scatter
        self.scatter = np.zeros((len(self.ki), self.nparams))
        self.scatter[np.arange(len(self.ki)), self.ki] = 1.0

    def theta(self, x) -> np.ndarray:
        t = self.theta0.copy()
        t[self.wi, self.zi] = x[self.ki] - self.centre
        return t

    def _factors(self, x):
        # One evaluation asks for the same point several times (stability test, each
        # goal's value, the chain rule): keep the last point's factors.
        key = np.asarray(x, float).tobytes()
        if getattr(self, "_cache_key", None) == key:
            return self._cache
        self._cache = self._compute_factors(x)
        self._cache_key = key
        return self._cache

    def _compute_factors(self, x):
        th = self.theta(x)
        nz = self.nz
        loop = np.eye(nz) - self.dzw @ th
        try:
            ct = np.linalg.solve(loop, self.right)
        except np.linalg.LinAlgError:
            raise IllPosedError("the tuned interconnection is ill-posed at these values") from None
        return th, loop, ct

    def statespace(self, x):
        """``(A, B, C, D)`` of the closed model at parameter vector ``x``."""
        key = np.asarray(x, float).tobytes()
        if getattr(self, "_ss_key", None) == key:
            return self._ss
        th, _, ct = self._factors(x)
        s = self.a0 + self.left @ (th @ ct)
        n = self.nx
        self._ss = (s[:n, :n], s[:n, n:], s[n:, :n], s[n:, n:])
        self._ss_key = key
        return self._ss

    def chain(self, x, grad_s):
        """Gradient with respect to ``x`` of a function with gradient ``grad_s`` w.r.t. S.

        ``grad_s`` has the shape of ``S = [[A, B], [C, D]]`` (or a stack of them,
        ``(k, n+ny, n+nu)``, for ``k`` functions at once).
        """
        th, loop, ct = self._factors(x)
        # Bt = [Bw; Dyw] (I - Theta Dzw)^-1, computed as a solve with the transpose.
        loop_t = np.eye(self.nw) - th @ self.dzw
        bt = np.linalg.solve(loop_t.T, self.left.T).T
        g = np.einsum("ai,...ab,jb->...ij", bt, grad_s, ct)
        vals = g[..., self.wi, self.zi]
        return vals @ self.scatter
