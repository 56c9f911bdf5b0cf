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


class UnusedSignalWarning(RobustMBWarning):
    """``connect`` left a system input undriven or a system output unused (names them)."""


class FreeTunableError(RobustMBError, TypeError):
    """An uncertainty analysis was given a model whose tunable parameters are still free."""


class FloatRangeError(RobustMBError, OverflowError):
    """A result exists but lies outside the range of double precision floats."""


class ArgumentError(RobustMBError, ValueError):
    """A function argument has an invalid value (names the argument and the function)."""


class WorkerPoolError(RobustMBError, RuntimeError):
    """A worker process of a parallel check stopped before returning its result."""


class IntegrationError(RobustMBError, RuntimeError):
    """A numerical integration stopped before its end (names the time reached and why)."""
