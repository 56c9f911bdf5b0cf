"""Full-order controller synthesis: H-infinity, H2, mixed sensitivity, loop shaping, mu.

Imports the LFT core and the analysis layer only.
"""

from .hinfsyn import HinfsynResult, hinfsyn

__all__ = ["HinfsynResult", "hinfsyn"]
