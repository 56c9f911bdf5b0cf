"""Exceptions raised by robustmb.

Every error names the element, signal or dimension at fault.  They subclass the
built-in ``ValueError`` / ``TypeError`` so callers can catch either the
specific robustmb class or the standard one.
"""


class RobustMBError(Exception):
    """Base class of every robustmb-specific exception."""


class UncertainElementError(RobustMBError, ValueError):
    """An uncertain element is declared with invalid data (names the element)."""


class DimensionError(RobustMBError, ValueError):
    """Operands have incompatible shapes (names the dimensions)."""


class SignalError(RobustMBError, ValueError):
    """An unknown, duplicated or ambiguous signal name."""


class IllPosedError(RobustMBError, ValueError):
    """An interconnection or LFT is not well posed (names the loop's signals)."""


class NameConflictError(RobustMBError, ValueError):
    """Two different uncertain elements are declared under one name."""


class UncertainTypeError(RobustMBError, TypeError):
    """An operand of an unsupported type."""


class UnstableNominalError(RobustMBError, ValueError):
    """The nominal closed loop is unstable (names its unstable poles)."""


class RobustMBWarning(UserWarning):
    """Base class of robustmb warnings."""


class ResidualMassWarning(RobustMBWarning):
    """Modal data whose residual mass ``D_P - L^T L`` is not positive definite."""


class SweepItemWarning(RobustMBWarning):
    """Some items of a sweep raised; the message lists their keys and the first error."""


class NonphysicalInertiaWarning(RobustMBWarning):
    """A body's principal moments of inertia break the triangle inequality ``I1 + I2 >= I3``."""


class UnusedSignalWarning(RobustMBWarning):
    """``connect`` left a system input undriven or a system output unused (names them)."""


class FreeTunableError(RobustMBError, TypeError):
    """An uncertainty analysis was given a model whose tunable parameters are still free."""


class FloatRangeError(RobustMBError, OverflowError):
    """A result exists but lies outside the range of double precision floats."""


class ArgumentError(RobustMBError, ValueError):
    """A function argument has an invalid value (names the argument and the function)."""


class DivisionByZeroError(RobustMBError, ZeroDivisionError):
    """An uncertain object is divided by zero (also a ``ZeroDivisionError``)."""


class WorkerPoolError(RobustMBError, RuntimeError):
    """A worker process of a parallel check stopped before returning its result."""


class IntegrationError(RobustMBError, RuntimeError):
    """A numerical integration stopped before its end (names the time reached and why)."""


class ReportInstallError(RobustMBError, OSError):
    """Installing a report failed and could not be fully undone; names the folders
    holding the previous and the new run's entries (nothing is deleted)."""


def warn(message: str, category: type[Warning] = RobustMBWarning) -> None:
    """Issue a warning attributed to the first caller outside the robustmb package.

    A fixed ``stacklevel`` points into the package whenever the warning is raised a
    different number of calls below the public function (a helper, a method, a batch
    path), so a user's filter by module or the line shown would name robustmb's code
    instead of the script that made the call.

    Examples
    --------
    >>> import warnings
    >>> from robustmb.errors import RobustMBWarning, warn
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warn("a message")
    >>> caught[0].category is RobustMBWarning
    True
    """
    import os
    import sys
    import warnings

    package = os.path.dirname(os.path.abspath(__file__)) + os.sep
    level, frame = 2, sys._getframe(1)  # level 1 would be this function
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)
