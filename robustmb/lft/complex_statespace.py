"""State-space models with complex coefficients.

python-control's ``StateSpace`` stores real matrices only (complex entries are
cast to real).  Substituting a complex value of a ``ucomplex`` into an
uncertain system gives complex coefficients, returned as this class, which
keeps them exactly.
"""

from __future__ import annotations

import numpy as np

from ..errors import DimensionError, UncertainTypeError


class ComplexStateSpace:
    """``x' = A x + B u``, ``y = C x + D u`` with complex matrices.

    Attributes mirror python-control's: ``A, B, C, D, dt, nstates, ninputs,
    noutputs, input_labels, output_labels, name``.

    Examples
    --------
    >>> import numpy as np
    >>> from robustmb.lft.complex_statespace import ComplexStateSpace
    >>> G = ComplexStateSpace([[-1 + 1j]], [[1.0]], [[1.0]], [[0.0]])
    >>> complex(G(0)[0, 0])
    (0.5+0.5j)
    >>> G.poles()
    array([-1.+1.j])
    """

    def __init__(self, A, B, C, D, dt=0, *, inputs=None, outputs=None, name=None):
        mats = []
        for what, m in zip("ABCD", (A, B, C, D), strict=True):
            try:
                m = np.asarray(m, dtype=complex)
            except (TypeError, ValueError):
                raise UncertainTypeError(
                    f"ComplexStateSpace: {what} must be a numeric matrix, got {m!r}"
                ) from None
            if m.ndim != 2:
                raise DimensionError(
                    f"ComplexStateSpace: {what} must be a 2-D matrix, got shape {m.shape}"
                )
            mats.append(m)
        self.A, self.B, self.C, self.D = mats
        n = self.A.shape[0]
        p, m = self.D.shape
        expected = {"A": (n, n), "B": (n, m), "C": (p, n)}
        for what, mat in zip("ABC", mats, strict=False):
            if mat.shape != expected[what]:
                raise DimensionError(
                    f"ComplexStateSpace: {what} has shape {mat.shape}; expected "
                    f"{expected[what]} from A {self.A.shape} and D {self.D.shape}"
                )
        self.dt = dt
        self.nstates = n
        self.noutputs, self.ninputs = p, m
        self.input_labels = (
            list(inputs) if inputs is not None else [f"u[{i}]" for i in range(self.ninputs)]
        )
        self.output_labels = (
            list(outputs) if outputs is not None else [f"y[{i}]" for i in range(self.noutputs)]
        )
        self.name = name

    def poles(self):
        """Eigenvalues of ``A``."""
        return np.linalg.eigvals(self.A) if self.nstates else np.zeros(0, complex)

    def __call__(self, x):
        """Transfer matrix at the complex point ``x`` (``s``, or ``z`` in discrete time)."""
        if self.nstates == 0:
            return self.D.copy()
        return self.C @ np.linalg.solve(x * np.eye(self.nstates) - self.A, self.B) + self.D

    def __repr__(self):
        return (
            f"<ComplexStateSpace {self.name!r}: {self.nstates} states, "
            f"{self.noutputs}x{self.ninputs}, dt={self.dt}>"
        )
