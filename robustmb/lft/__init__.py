"""Uncertain elements and LFT objects: the core of robustmb.

This layer imports nothing else from robustmb.  An uncertain object is one
LFT ``Fu(M, Delta)`` with a normalised block-diagonal ``Delta``; every
operation returns an exact LFT of the same map.
"""

from .algebra import (
    block_diag,
    feedback,
    hstack,
    inv,
    lft_lower,
    lft_upper,
    parallel,
    series,
    star,
    vstack,
)
from .connect import connect
from .data import lftdata
from .elements import UncertainElement, ucomplex, ultidyn, ureal
from .model import UncertainMatrix, UncertainModel, UncertainSystem, umat, uss
from .rational import UncertainRational
from .simplify import simplify

__all__ = [
    "UncertainElement",
    "UncertainMatrix",
    "UncertainModel",
    "UncertainRational",
    "UncertainSystem",
    "block_diag",
    "connect",
    "feedback",
    "hstack",
    "inv",
    "lft_lower",
    "lft_upper",
    "lftdata",
    "parallel",
    "series",
    "simplify",
    "star",
    "ucomplex",
    "ultidyn",
    "umat",
    "ureal",
    "uss",
    "vstack",
]
