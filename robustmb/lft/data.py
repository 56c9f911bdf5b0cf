"""``lftdata``: the normalised LFT coefficient and the block list of an uncertain object."""

from __future__ import annotations

import control
import numpy as np

from .complex_statespace import ComplexStateSpace
from .model import as_model, unique_names


def lftdata(x):
    """Normalised LFT data of an uncertain object.

    Parameters
    ----------
    x : uncertain object
        Matrix or system.

    Returns
    -------
    M : numpy.ndarray, control.StateSpace or ComplexStateSpace
        The coefficient ``M`` with the Delta channels first: ``[z; y] = M [w; u]``
        and ``x = Fu(M, Delta)`` with ``Delta`` normalised (each real
        ``delta`` in [-1, 1], complex and dynamic blocks in the unit ball).
    blocks : list of tuple
        ``(name, kind, repetitions, shape)`` in the order of Delta's channels;
        the block of ``name`` is ``I_repetitions kron delta`` with ``delta`` of
        shape ``shape``.

    Examples
    --------
    >>> import robustmb as rmb
    >>> a = rmb.ureal("a", 3.0, range=(2.0, 6.0))
    >>> M, blocks = rmb.lftdata(a)
    >>> M
    array([[0., 1.],
           [2., 4.]])
    >>> blocks
    [('a', 'real', 1, (1, 1))]
    """
    m = as_model(x)
    r = m._real
    blocks = [
        (name, el.kind, reps, tuple(el.block_shape)) for name, el, reps, _, _ in r.block_slices()
    ]
    if not m.is_system:
        return r.d.copy(), blocks
    w_names = [f"w[{i}]" for i in range(r.nw)]
    z_names = [f"z[{i}]" for i in range(r.nz)]
    dt = 0 if m.dt is None else m.dt
    if any(np.iscomplexobj(x) and np.any(np.imag(x) != 0) for x in (r.a, r.b, r.c, r.d)):
        # complex coefficients (e.g. a ucomplex with a complex nominal value): python-control
        # would drop the imaginary parts
        return ComplexStateSpace(
            r.a,
            r.b,
            r.c,
            r.d,
            dt,
            inputs=unique_names(w_names + m.input_names),
            outputs=unique_names(z_names + m.output_names),
        ), blocks
    sys = control.StateSpace(
        *(np.real(x) for x in (r.a, r.b, r.c, r.d)),
        dt,
        inputs=unique_names(w_names + m.input_names),
        outputs=unique_names(z_names + m.output_names),
    )
    return sys, blocks
