"""Full-order controller synthesis: H-infinity, H2, mixed sensitivity, loop shaping, mu.

Imports the LFT core and the analysis layer only.
"""

from .h2syn import H2synResult, h2syn
from .hinfsyn import HinfsynResult, hinfsyn
from .mixsyn import mixsyn
from .musyn import MusynResult, musyn
from .ncfsyn import NcfsynResult, ncfsyn

__all__ = [
    "H2synResult",
    "HinfsynResult",
    "MusynResult",
    "NcfsynResult",
    "h2syn",
    "hinfsyn",
    "mixsyn",
    "musyn",
    "ncfsyn",
]
