"""Analysis of certain and uncertain systems: frequency response, norms, mu, robustness.

Imports the LFT core only.
"""

from .disk_geometry import dm2gm, gm2dm
from .diskmargin import diskmargin
from .freqresp import freqresp, sigma_max_over_frequency
from .mu_upper import expand_scalings, verify_upper_bound
from .mussv import MussvResult, mussv, verify_lower_bound
from .norms import h2norm, hinfnorm
from .robust_gain import RobgainResult, robgain
from .robust_stability import RobstabResult, robstab
from .sweep import SweepResult, load_sweep, sweep
from .worst_case_disk_margin import wcdiskmargin
from .worst_case_gain import WcgainResult, wcgain

__all__ = [
    "SweepResult",
    "load_sweep",
    "sweep",
    "MussvResult",
    "expand_scalings",
    "verify_lower_bound",
    "verify_upper_bound",
    "RobgainResult",
    "RobstabResult",
    "WcgainResult",
    "diskmargin",
    "dm2gm",
    "freqresp",
    "gm2dm",
    "h2norm",
    "hinfnorm",
    "mussv",
    "robgain",
    "robstab",
    "sigma_max_over_frequency",
    "wcdiskmargin",
    "wcgain",
]
