"""Analysis of certain and uncertain systems: frequency response, norms, mu, robustness.

Imports the LFT core only.
"""

from .diskmargin import diskmargin, dm2gm, gm2dm, wcdiskmargin
from .freqresp import freqresp, sigma_max_over_frequency
from .mussv import mussv
from .norms import h2norm, hinfnorm
from .robust_stability import RobstabResult, robstab
from .worst_case_gain import RobgainResult, WcgainResult, robgain, wcgain

__all__ = [
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
