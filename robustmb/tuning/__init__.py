"""Structured controller tuning: tunable parameters and blocks, goals, hinfstruct, systune.

Tunable parameters (:class:`realp`) live in the same LFT ``Delta`` structure as the
uncertain elements, so a closed loop built with the usual operators and ``connect`` holds
both, by name.  The optimisers minimise H-infinity goals over the tunable entries with
analytic subgradients at the peak frequency.
"""

from .full_order_floor import FullOrderFloor, full_order_floor, full_order_gamma
from .goals import (
    Gain,
    Goal,
    Margins,
    Poles,
    Rejection,
    Sensitivity,
    Tracking,
    Variance,
    WeightedGain,
    analysis_point,
)
from .hinfstruct import HinfstructResult, hinfstruct
from .realp import realp
from .systune import systune
from .systune_result import SystuneResult
from .tunable_gain import tunable_gain
from .tunable_pid import tunable_pid
from .tunable_ss import tunable_ss
from .tunable_surface import tunable_surface
from .tunable_tf import tunable_tf

__all__ = [
    "Gain",
    "Goal",
    "Margins",
    "Poles",
    "Rejection",
    "Sensitivity",
    "SystuneResult",
    "Tracking",
    "Variance",
    "WeightedGain",
    "analysis_point",
    "FullOrderFloor",
    "full_order_floor",
    "full_order_gamma",
    "systune",
    "HinfstructResult",
    "hinfstruct",
    "realp",
    "tunable_gain",
    "tunable_pid",
    "tunable_ss",
    "tunable_surface",
    "tunable_tf",
]
