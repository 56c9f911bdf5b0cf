"""A family of same-size LTI models held as one stack of state-space arrays.

``A (N, n, n), B (N, n, m), C (N, p, n), D (N, p, m)`` and a common sampling time: the
form in which the batched routines of :mod:`~robustmb.analysis.batched_norms` and
:mod:`~robustmb.analysis.model_family` see a gridded or Monte-Carlo family.  Kept apart
from both so that the single-model norms (which accept a family too) can recognise one
without importing the routines that fall back on them.
"""

from __future__ import annotations

import numpy as np

from robustmb.analysis._statespace import as_statespace_data
from robustmb.errors import DimensionError, UncertainTypeError

__all__ = ["as_statespace_stack", "is_model_stack"]


def _lti_types():
    import control

    from robustmb.lft.complex_statespace import ComplexStateSpace

    return (control.StateSpace, control.TransferFunction, ComplexStateSpace)


def _is_uncertain(item) -> bool:
    from robustmb.lft.model import UncertainModel

    return isinstance(item, UncertainModel)


def is_model_stack(sys) -> bool:
    """True for a family of models: a list (or a tuple) holding an LTI or uncertain
    system, a list or tuple of ``(A, B, C, D[, dt])`` tuples, the empty list, or a
    tuple ``(A, B, C, D[, dt])`` with 3-D ``A``.

    A list or tuple with at least one LTI or uncertain system in it is a family whatever
    its other elements are, so that :func:`as_statespace_stack` names the element that
    is not a model (``models[k]``) instead of the whole list failing as a static gain.

    Examples
    --------
    >>> import numpy as np
    >>> is_model_stack((np.zeros((5, 2, 2)), np.zeros((5, 2, 1)), np.zeros((5, 1, 2)),
    ...                 np.zeros((5, 1, 1))))
    True
    >>> is_model_stack([[1.0, 2.0]])      # a static gain, not a family
    False
    >>> import control
    >>> is_model_stack((control.tf([1.0], [1.0, 1.0]),) * 4)   # four models, not (A, B, C, D)
    True
    """
    if isinstance(sys, list) and not sys:
        return True  # hinfnorm([]) reports an empty family, not a gain of shape (0,)
    if not isinstance(sys, (list, tuple)) or not sys:
        return False
    lti = _lti_types()
    if any(isinstance(item, lti) or _is_uncertain(item) for item in sys):
        return True
    if all(_is_model_tuple(item) for item in sys):
        return True  # models (A, B, C, D[, dt]), in a list or in a tuple
    if isinstance(sys, tuple):
        return len(sys) in (4, 5) and _ndim(sys[0]) == 3
    return False


def _ndim(x):
    """``numpy.ndim`` of ``x``; -1 for nested sequences of uneven lengths."""
    try:
        return np.ndim(x)
    except ValueError:
        return -1


def _is_model_tuple(item):
    """A tuple ``(A, B, C, D[, dt])`` of one model: a matrix first (``(1, 2)`` is a row
    of a gain, and a stacked ``A`` is an array, not a tuple)."""
    return isinstance(item, tuple) and len(item) in (4, 5) and _ndim(item[0]) == 2


def as_statespace_stack(models, *, argname: str = "models"):
    """Stacked state-space matrices of a family of same-size models.

    Parameters
    ----------
    models : list or tuple of LTI models, or tuple (A, B, C, D[, dt]) of 3-D arrays
        Every model in a form accepted by
        :func:`~robustmb.analysis._statespace.as_statespace_data`; all with the same
        numbers of states, inputs and outputs and the same sampling time.
    argname : str, optional
        Name of the argument the user wrote, for error messages (default ``models``;
        ``hinfnorm(sys)`` on a family passes ``sys``).

    Returns
    -------
    A, B, C, D : numpy.ndarray
        Shapes ``(N, n, n)``, ``(N, n, m)``, ``(N, p, n)``, ``(N, p, m)``.
    dt : float

    Raises
    ------
    DimensionError
        The family is empty, or an element differs in size or sampling time from the
        first one, or is not a model (it is named: ``models[k]``).
    UncertainTypeError
        An element is an uncertain system (use its ``.nominal()`` or ``.usample(n)``).

    Examples
    --------
    >>> import control
    >>> A, B, C, D, dt = as_statespace_stack([control.tf([1.0], [1.0, k]) for k in (1, 2)])
    >>> A.shape, dt
    ((2, 1, 1), 0.0)
    >>> try:
    ...     as_statespace_stack([control.tf([1.0], [1.0, 1.0]), "G"])
    ... except Exception as err:
    ...     print(str(err).split(";")[0])
    models[1] of type str is not supported
    """
    if isinstance(models, (list, tuple)):
        for k, item in enumerate(models):
            if _is_uncertain(item):
                name = f"{argname}[{k}]"
                raise UncertainTypeError(
                    f"{name} is an uncertain system ({type(item).__name__}); a family takes "
                    f"LTI models: give its nominal model ({name}.nominal()) or samples of it "
                    f"({name}.usample(n))"
                )
    if _is_stacked_tuple(models):
        if len(models) not in (4, 5):
            raise DimensionError(
                f"{argname} as a stacked tuple needs (A, B, C, D) or (A, B, C, D, dt); "
                f"got {len(models)} entries"
            )
        arrays = [np.asarray(x) for x in models[:4]]
        if any(x.ndim != 3 or x.shape[0] != arrays[0].shape[0] for x in arrays):
            raise DimensionError(
                f"{argname} as a stacked tuple needs A, B, C, D of 3 dimensions with the same "
                f"leading size; got shapes {[x.shape for x in arrays]}"
            )
        N = arrays[0].shape[0]
        if N == 0:
            raise DimensionError(f"{argname} is an empty family: give at least one model")
        dt_in = models[4] if len(models) == 5 else 0.0
        items = [tuple(x[k] for x in arrays) + (dt_in,) for k in range(N)]
    else:
        items = list(models)
        if len(items) == 0:
            raise DimensionError(f"{argname} is an empty family: give at least one model")
        fast = _stack_of_statespace(items, argname)
        if fast is not None:
            return fast
    parts = [as_statespace_data(item, argname=f"{argname}[{k}]") for k, item in enumerate(items)]
    A0, _, _, D0, dt0 = parts[0]
    for k, (A, _, _, D, dt) in enumerate(parts):
        if A.shape != A0.shape or D.shape != D0.shape or dt != dt0:
            raise DimensionError(
                f"{argname}[{k}] has {A.shape[0]} states, {D.shape[1]} inputs, {D.shape[0]} "
                f"outputs and dt={dt}; {argname}[0] has {A0.shape[0]}, {D0.shape[1]}, "
                f"{D0.shape[0]} and dt={dt0}: a family must have models of one size and one "
                "sampling time"
            )
    dtype = np.result_type(*(M for part in parts for M in part[:4]))
    stacked = [np.array([part[i] for part in parts], dtype=dtype) for i in range(4)]
    return (*stacked, dt0)


def _stack_of_statespace(models, argname):
    """Stacked matrices of real ``control.StateSpace`` models of one size and sampling
    time, validated once for the whole stack; None for anything else (then every model
    goes through :func:`as_statespace_data`, which names the element at fault)."""
    import control

    if not all(type(G) is control.StateSpace for G in models):
        return None
    G0 = models[0]
    if G0.dt is not None and G0.dt is not True and not isinstance(G0.dt, int | float):
        return None
    if any(G.A.shape != G0.A.shape or G.D.shape != G0.D.shape or G.dt != G0.dt for G in models):
        return None
    try:
        stacked = [np.array([getattr(G, X) for G in models]) for X in "ABCD"]
    except (TypeError, ValueError):
        return None
    if not all(X.dtype.kind in "fiu" for X in stacked):  # complex or object: slow path
        return None
    stacked = [X.astype(float) for X in stacked]
    if not all(np.isfinite(X).all() for X in stacked):
        return None
    dt = as_statespace_data(G0, argname=f"{argname}[0]")[4]
    return (*stacked, dt)


def _models(A, B, C, D, dt):
    return [(A[k], B[k], C[k], D[k], dt) for k in range(A.shape[0])]


def _is_stacked_tuple(models):
    """A tuple ``(A, B, C, D[, dt])`` of stacked arrays (not a tuple of models: LTI
    objects or tuples ``(A, B, C, D[, dt])``)."""
    return (
        isinstance(models, tuple)
        and not any(isinstance(m, _lti_types()) for m in models)
        and not (models and all(_is_model_tuple(m) for m in models))
    )


def _model_tuple(models, k):
    """Model ``k`` of a family, in the form it was given (an LTI object or a tuple)."""
    if _is_stacked_tuple(models):
        return tuple(np.asarray(x)[k] for x in models[:4]) + tuple(models[4:])
    return models[k]
