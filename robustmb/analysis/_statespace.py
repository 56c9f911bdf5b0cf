"""Conversion of the LTI objects accepted by the analysis functions to plain matrices.

Every analysis routine works on numpy arrays ``(A, B, C, D, dt)``; this module is the one
place where user input is recognised, converted and validated.  ``dt`` is ``0.0`` for a
continuous-time model and the (positive) sampling time for a discrete-time one.
"""

from __future__ import annotations

import numbers

import control
import numpy as np

from robustmb.errors import DimensionError, UncertainTypeError

__all__ = ["as_statespace_data"]

_MATRIX_NAMES = ("A", "B", "C", "D")


def as_statespace_data(sys, *, argname: str = "sys"):
    """Return the state-space matrices and sampling time of a fixed LTI model.

    Parameters
    ----------
    sys : control.StateSpace, control.TransferFunction, array_like, scalar or tuple
        The model.  Accepted forms:

        - ``ComplexStateSpace`` (complex coefficients, kept exactly);
        - ``control.StateSpace`` (``dt=None`` is read as continuous time, ``dt=True``
          as discrete time with unit sampling time, as in python-control);
        - ``control.TransferFunction``, realised with ``control.ss`` (it must be proper);
        - a scalar or a 2-D array: a static gain (no states, continuous time);
        - a tuple ``(A, B, C, D)`` (continuous time) or ``(A, B, C, D, dt)``.
    argname : str, optional
        Name of the argument used in error messages.

    Returns
    -------
    A, B, C, D : numpy.ndarray
        Arrays of shapes ``(n, n)``, ``(n, m)``, ``(p, n)``, ``(p, m)``; all four are
        ``float64`` unless one of them is complex, in which case all are ``complex128``.
        They are fresh copies.
    dt : float
        ``0.0`` for continuous time, otherwise the sampling time (> 0).

    Raises
    ------
    UncertainTypeError
        For uncertain robustmb objects (pass ``X.nominal()`` or use ``robstab`` /
        ``wcgain``) and for unsupported types.
    DimensionError
        For inconsistent shapes, non-finite entries, an improper transfer function or an
        invalid sampling time.

    Examples
    --------
    >>> import control
    >>> A, B, C, D, dt = as_statespace_data(control.tf([1.0], [1.0, 2.0]))
    >>> A.shape, B.shape, C.shape, D.shape, dt
    ((1, 1), (1, 1), (1, 1), (1, 1), 0.0)
    >>> as_statespace_data(2.5)[3]
    array([[2.5]])
    >>> A, B, C, D, dt = as_statespace_data(([[0.5]], [[1.0]], [[1.0]], [[0.0]], 0.1))
    >>> dt
    0.1
    """
    from robustmb.lft.complex_statespace import ComplexStateSpace

    if isinstance(sys, ComplexStateSpace):
        # a fixed model with complex coefficients (a substituted ucomplex, for one)
        A, B, C, D = _validated_matrices((sys.A, sys.B, sys.C, sys.D), argname)
        return A, B, C, D, _sampling_time(sys.dt, argname)
    if _looks_uncertain(sys):
        raise UncertainTypeError(
            f"{argname} is an uncertain object of type {type(sys).__name__}; this function "
            "needs a fixed LTI model. Pass X.nominal() (or a sample from X.usample) for the "
            "nominal model, or use rmb.robstab / rmb.wcgain to analyse the uncertain system."
        )
    if isinstance(sys, control.StateSpace):
        matrices = (sys.A, sys.B, sys.C, sys.D)
        dt = _sampling_time(sys.dt, argname)
    elif isinstance(sys, control.TransferFunction):
        _check_proper(sys, argname)
        matrices = _realise_scaled(sys)
        dt = _sampling_time(sys.dt, argname)
    elif isinstance(sys, tuple):
        if len(sys) not in (4, 5):
            raise DimensionError(
                f"{argname} given as a tuple must be (A, B, C, D) or (A, B, C, D, dt); "
                f"got a tuple of length {len(sys)}"
            )
        matrices = sys[:4]
        dt = _sampling_time(sys[4] if len(sys) == 5 else 0.0, argname)
    elif isinstance(sys, numbers.Number | np.ndarray | list) and not isinstance(sys, bool):
        gain = _as_numeric_array(sys, f"{argname} (static gain)")
        if gain.ndim == 0:
            gain = gain.reshape(1, 1)
        if gain.ndim != 2:
            raise DimensionError(
                f"{argname} as a static gain must be a scalar or a 2-D array; "
                f"got an array of shape {gain.shape}"
            )
        p, m = gain.shape
        matrices = (np.zeros((0, 0)), np.zeros((0, m)), np.zeros((p, 0)), gain)
        dt = 0.0
    else:
        raise UncertainTypeError(
            f"{argname} of type {type(sys).__name__} is not supported; pass a "
            "control.StateSpace, a control.TransferFunction, a static gain (scalar or 2-D "
            "array) or a tuple (A, B, C, D[, dt])"
        )
    A, B, C, D = _validated_matrices(matrices, argname)
    return A, B, C, D, dt


def _realise_scaled(tf: control.TransferFunction):
    """A realisation of ``tf``: companion forms of its entries, block diagonal
    (:func:`_companion`, :func:`_entry_companions`), where python-control realises each
    entry at full order; otherwise ``control.ss(tf)`` with the numerators scaled to unit
    size first.

    python-control computes its realisation in floating point (``ss(tf([2], [1, 2e-7,
    1]))`` stores the damping as ``-2.0000000011677344e-07``); the companion form copies
    the coefficients.  Where python-control returns fewer states than the degree it
    removed a cancellation, and its minimal realisation is kept.
    """
    blocks = _entry_companions(tf)
    if blocks is None:
        return _realise_scaled_pc(tf)
    p, m = tf.noutputs, tf.ninputs
    n = sum(block[0].shape[0] for _, _, block in blocks)
    A, B, C, D = np.zeros((n, n)), np.zeros((n, m)), np.zeros((p, n)), np.zeros((p, m))
    k = 0
    for i, j, (Ae, Be, Ce, De) in blocks:
        size = Ae.shape[0]
        A[k : k + size, k : k + size] = Ae
        B[k : k + size, j : j + 1] = Be
        C[i : i + 1, k : k + size] = Ce
        D[i, j] = De[0, 0]
        k += size
    return A, B, C, D


def _entry_companions(tf: control.TransferFunction):
    """``[(i, j, companion of entry (i, j))]``, or ``None`` where an entry has no exact
    companion form or python-control realises it with fewer states (a cancellation).

    A multi-input or multi-output ``tf`` is realised entry by entry, block diagonal: not
    minimal, but the same transfer function, and every mode is a pole of some entry,
    hence of ``tf`` (stability is unchanged).  python-control's own realisation of such
    a model (common denominators, a minimal realisation in floating point) moves lightly
    damped poles far more than one rounding.
    """
    blocks = []
    for i in range(tf.noutputs):
        for j in range(tf.ninputs):
            num = np.atleast_1d(np.asarray(tf.num[i][j], dtype=float))
            den = np.atleast_1d(np.asarray(tf.den[i][j], dtype=float))
            companion = _companion(num, den)
            if companion is None:
                return None
            if not np.any(num):
                # a zero entry adds no states
                blocks.append((i, j, _zero_entry()))
                continue
            size = companion[0].shape[0]
            # numerator at unit size: python-control drops tiny coefficients
            unit = num * 2.0 ** -int(np.frexp(np.max(np.abs(num)))[1])
            if size and control.ss(control.tf(unit, den)).nstates != size:
                return None
            blocks.append((i, j, companion))
    return blocks


def _zero_entry():
    """The realisation of a zero entry: no states."""
    return np.zeros((0, 0)), np.zeros((0, 1)), np.zeros((1, 0)), np.zeros((1, 1))


def _companion(num, den):
    """Controllable companion form of ``num(s) / den(s)``: ``(A, B, C, D)``, or ``None``.

    With ``a = den / den[0]`` and ``b = num / den[0]`` (``num`` padded to the degree
    ``n``): ``A`` has first row ``-a[1:]`` and ones on its subdiagonal, ``B = e_1``,
    ``D = b[0]`` and ``C = b[1:] - b[0] a[1:]``.  This is exact when ``den[0]`` is a
    power of 2 and the model strictly proper (monic: no operation at all); otherwise each
    coefficient carries one rounding of the division (and of ``b[0] a_k`` and the
    subtraction, biproper models), a relative ``eps`` per coefficient of ``tf``.
    ``None`` for non-finite coefficients or an improper ratio.

    Examples
    --------
    >>> import numpy as np
    >>> A, B, C, D = _companion(np.array([2.0]), np.array([1.0, 2e-7, 1.0]))
    >>> A.tolist(), B.ravel().tolist(), C.ravel().tolist(), float(D[0, 0])
    ([[-2e-07, -1.0], [1.0, 0.0]], [1.0, 0.0], [0.0, 2.0], 0.0)
    """
    den = np.trim_zeros(den, "f")
    num = np.trim_zeros(num, "f")
    if den.size == 0 or num.size > den.size:
        return None
    if not (np.all(np.isfinite(num)) and np.all(np.isfinite(den))):
        return None
    n = den.size - 1
    lead = den[0]
    a = den[1:] / lead
    b = np.concatenate([np.zeros(n + 1 - num.size), num]) / lead
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))):
        return None
    A = np.zeros((n, n))
    if n:
        A[0, :] = -a
        A[1:, :-1] = np.eye(n - 1)
    B = np.zeros((n, 1))
    if n:
        B[0, 0] = 1.0
    # b[0] = 0 for a strictly proper model: C is then b[1:], untouched
    C = (b[1:] - b[0] * a if b[0] != 0 else b[1:]).reshape(1, n)
    D = np.array([[b[0]]])
    return A, B, C, D


def _realise_scaled_pc(tf: control.TransferFunction):
    """``control.ss(tf)`` with the numerators scaled to unit size first.

    python-control treats numerator coefficients below an absolute threshold as zero
    (``tf(1e-100, [1, 1])`` would become the zero system); a power-of-2 scaling,
    undone on ``C`` and ``D``, keeps the model exact.
    """
    top = max(
        (float(np.max(np.abs(np.asarray(num, dtype=complex)))) for row in tf.num for num in row),
        default=0.0,
    )
    if top == 0.0 or not np.isfinite(top):
        realised = control.ss(tf)
        return realised.A, realised.B, realised.C, realised.D
    e = int(np.frexp(top)[1])
    scaled = control.tf(
        [[np.asarray(num) * 2.0 ** (-e) for num in row] for row in tf.num],
        tf.den,
        tf.dt,
    )
    realised = control.ss(scaled)
    return realised.A, realised.B, realised.C * 2.0**e, realised.D * 2.0**e


def _looks_uncertain(obj) -> bool:
    """True for robustmb uncertain elements and objects (umat, uss, ...)."""
    module = type(obj).__module__ or ""
    if module.startswith("robustmb.lft") or module.startswith("robustmb.uncertain"):
        return True
    return hasattr(obj, "blocks") and hasattr(obj, "uncertainty") and hasattr(obj, "nominal")


def _sampling_time(dt, argname: str) -> float:
    """Map python-control's ``dt`` conventions to ``0.0`` (continuous) or a positive float."""
    if dt is None or dt is False:
        return 0.0
    if dt is True:
        return 1.0
    try:
        value = float(dt)
    except (TypeError, ValueError):
        raise DimensionError(
            f"sampling time of {argname} must be 0 (continuous), True or a positive number; "
            f"got {dt!r}"
        ) from None
    if value == 0.0:
        return 0.0
    if not np.isfinite(value) or value < 0.0:
        raise DimensionError(
            f"sampling time of {argname} must be 0 (continuous), True or a positive number; "
            f"got {dt!r}"
        )
    return value


def _check_proper(tf: control.TransferFunction, argname: str) -> None:
    """Raise a DimensionError naming the first improper entry of a transfer function."""
    for i, (num_row, den_row) in enumerate(zip(tf.num, tf.den, strict=True)):
        for j, (num, den) in enumerate(zip(num_row, den_row, strict=True)):
            num_degree = len(np.trim_zeros(np.atleast_1d(num), "f")) - 1
            den_degree = len(np.trim_zeros(np.atleast_1d(den), "f")) - 1
            if num_degree > den_degree:
                raise DimensionError(
                    f"{argname} is an improper transfer function: entry ({i}, {j}) has "
                    f"numerator degree {num_degree} > denominator degree {den_degree}, so it "
                    "has no state-space realisation"
                )


def _as_numeric_array(value, name: str) -> np.ndarray:
    """Convert to a float or complex array, rejecting non-numeric content."""
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise UncertainTypeError(f"{name} is not a numeric array: {exc}") from None
    if array.dtype == object:
        if any(_looks_uncertain(entry) for entry in array.flat):
            raise UncertainTypeError(
                f"{name} contains uncertain elements; pass X.nominal() for the nominal value "
                "or use rmb.robstab / rmb.wcgain"
            )
        try:
            array = array.astype(complex)
        except (TypeError, ValueError):
            raise UncertainTypeError(f"{name} has non-numeric entries") from None
        if not np.any(array.imag):
            array = array.real
    if array.dtype.kind == "b" or array.dtype.kind not in "biufc":
        raise UncertainTypeError(f"{name} has non-numeric dtype {array.dtype}")
    if array.dtype.kind == "c":
        return array.astype(np.complex128)
    return array.astype(np.float64)


def _validated_matrices(matrices, argname: str):
    """Convert (A, B, C, D) to arrays, check consistent shapes and finite entries."""
    A, B, C, D = (
        _as_numeric_array(M, f"{name} of {argname}")
        for M, name in zip(matrices, _MATRIX_NAMES, strict=True)
    )
    D = D.reshape(1, 1) if D.ndim == 0 else D
    if D.ndim != 2:
        raise DimensionError(f"D of {argname} must be 2-D; got shape {D.shape}")
    p, m = D.shape
    if A.size == 0:
        # No states: tolerate the many spellings of empty B and C.
        A = np.zeros((0, 0), dtype=A.dtype)
        if B.size != 0 or C.size != 0:
            raise DimensionError(
                f"{argname} has no states (A is empty) but B has shape {B.shape} and C has "
                f"shape {C.shape}; both must be empty"
            )
        B = np.zeros((0, m), dtype=B.dtype)
        C = np.zeros((p, 0), dtype=C.dtype)
    else:
        for M, name in ((A, "A"), (B, "B"), (C, "C")):
            if M.ndim != 2:
                raise DimensionError(f"{name} of {argname} must be 2-D; got shape {M.shape}")
        n = A.shape[0]
        if A.shape != (n, n):
            raise DimensionError(f"A of {argname} must be square; got shape {A.shape}")
        if B.shape != (n, m):
            raise DimensionError(
                f"B of {argname} has shape {B.shape}; expected (n, m) = ({n}, {m}) from A "
                f"{A.shape} and D {D.shape}"
            )
        if C.shape != (p, n):
            raise DimensionError(
                f"C of {argname} has shape {C.shape}; expected (p, n) = ({p}, {n}) from A "
                f"{A.shape} and D {D.shape}"
            )
    result = []
    for M, name in zip((A, B, C, D), _MATRIX_NAMES, strict=True):
        if not np.all(np.isfinite(M)):
            bad = tuple(int(k) for k in np.argwhere(~np.isfinite(M))[0])
            raise DimensionError(
                f"{name} of {argname} (shape {M.shape}) has a non-finite entry at {bad}"
            )
        result.append(M)
    dtype = np.result_type(*result)
    return tuple(np.array(M, dtype=dtype, copy=True) for M in result)
