"""Uncertain elements and LFT objects: the core of robustmb.

This layer imports nothing else from robustmb.  An uncertain object is one
LFT ``Fu(M, Delta)`` with a normalised block-diagonal ``Delta``; every
operation returns an exact LFT of the same map.

The modules import each other in one direction only (``tests/test_import_layers.py``
checks it), bottom to top:

- tools: :mod:`.arguments` (argument checks), :mod:`.realization` (the state-space
  data of ``M`` and how realizations are appended and closed),
  :mod:`.complex_statespace`;
- data model: :mod:`.elements` (``ureal``, ``ucomplex``, ``ultidyn``), :mod:`.model`
  (``UncertainMatrix``/``UncertainSystem``, ``umat``, ``uss``, conversions),
  :mod:`.delta` (the Delta block at given values, nominal well-posedness);
- operations: :mod:`.structural` (``sminreal``), :mod:`.simplify`, :mod:`.data`
  (``lftdata``), :mod:`.sumblk`, :mod:`.algebra` (sums, products, inverse,
  concatenation, feedback, LFTs, star products), :mod:`.rational` (transfer
  functions with uncertain coefficients), :mod:`.arithmetic` (either of the two),
  :mod:`.substitution` (``usubs``, ``usample``), :mod:`.connect`;
- :mod:`.operators`: ``+ - * @ /``, ``nominal``, ``usubs``, ``usample`` and indexing,
  attached to the data classes last.
"""

from . import operators  # noqa: F401  (attaches the operators and methods to the classes)
from .algebra import block_diag, feedback, hstack, inv, lft_lower, lft_upper, star, vstack
from .arithmetic import parallel, series
from .connect import connect
from .data import lftdata
from .elements import UncertainElement, ucomplex, ultidyn, ureal
from .model import UncertainMatrix, UncertainModel, UncertainSystem, umat, uss
from .rational import UncertainRational
from .simplify import simplify
from .substitution import usample_of as usample
from .substitution import usubs_of as usubs
from .sumblk import sumblk

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
    "sumblk",
    "ucomplex",
    "ultidyn",
    "umat",
    "usample",
    "ureal",
    "uss",
    "usubs",
    "vstack",
]
