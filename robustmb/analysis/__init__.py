"""Analysis of certain and uncertain systems: frequency response, norms, mu, robustness.

Imports the LFT core only.
"""

from .freqresp import freqresp, sigma_max_over_frequency
from .norms import h2norm, hinfnorm

__all__ = ["freqresp", "h2norm", "hinfnorm", "sigma_max_over_frequency"]
