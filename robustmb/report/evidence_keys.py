"""Cells and split pieces of a partition certificate: keys, file names, exact area, gaps.

A partition certificate of the (t1, t2) square splits it into ``n x n`` grid cells; a
cell may be split further into ``P1 x P2`` equal pieces (``P1`` along t1, ``P2`` along
t2), a piece again, and so on (:mod:`robustmb.analysis.sub_box`).  Evidence is stored
per cell or piece, under a key:

- ``(i, j)`` for the whole grid cell ``i`` (t1) x ``j`` (t2), from the lower ends;
- ``(i, j, path)`` for a piece, ``path`` a non-empty tuple of ``(P1, P2, a, b)`` steps:
  piece ``(a, b)`` of a ``P1 x P2`` split of the previous cell.

(A whole cell has no third entry, so keys of whole cells are the pairs of the grid.)
Its file is ``box_i_j.npz`` for a whole cell and ``box_i_j_P1xP2-a-b[_P1xP2-a-b...].npz``
for a piece (e.g. ``box_6_7_2x2-0-1_2x2-1-1.npz``).

The keys of one certificate form a split tree: no key lies inside another, and all the
split pieces below one cell or piece come from one split shape.  Their areas are exact
fractions of the square; the parts with no evidence are the uncovered leaves of the tree
(:func:`uncovered_leaves`).
"""

from __future__ import annotations

import operator
import re
from fractions import Fraction

import numpy as np

from ..analysis.sub_box import cell_rect
from ..errors import ArgumentError

_STEP = re.compile(r"(\d+)x(\d+)-(\d+)-(\d+)")


def evidence_key(i, j, path=()):
    """The key of cell ``(i, j)`` (``path`` empty) or of its piece ``path``.

    Examples
    --------
    >>> evidence_key(6, 7), evidence_key(6, 7, [[2, 2, 0, 1]])
    ((6, 7), (6, 7, ((2, 2, 0, 1),)))
    """
    i, j, path = key_parts((i, j, path))
    return (i, j, path) if path else (i, j)


def _index(v):
    # integers only (numpy integers too): no silent int() of 0.7, "3" or True
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{v!r} is a bool")
    return operator.index(v)


def key_parts(key):
    """``(i, j, path)`` of a key (``path`` empty for a whole cell).

    Accepts ``(i, j)``, ``(i, j, path)`` and ``(i, j, ())``, every entry an integer
    (Python or numpy; ``operator.index``): a float, a string or a bool is refused, never
    rounded.

    Raises
    ------
    ArgumentError
        ``key`` not of one of those forms.

    Examples
    --------
    >>> key_parts((6, 7)), key_parts((6, 7, ((2, 2, 0, 1),)))
    ((6, 7, ()), (6, 7, ((2, 2, 0, 1),)))
    >>> try:
    ...     key_parts((0.7, 1))
    ... except ArgumentError as err:
    ...     print(err)
    key: expected (i, j) or (i, j, ((P1, P2, a, b), ...)) of integers, got (0.7, 1)
    """
    try:
        if len(key) == 2:
            return _index(key[0]), _index(key[1]), ()
        if len(key) == 3:
            path = tuple(tuple(_index(v) for v in step) for step in key[2])
            if all(len(step) == 4 for step in path):
                return _index(key[0]), _index(key[1]), path
    except (TypeError, ValueError):
        pass
    raise ArgumentError(
        f"key: expected (i, j) or (i, j, ((P1, P2, a, b), ...)) of integers, got {key!r}"
    )


def normalised_keys(mapping):
    """``mapping`` with every key in the form :func:`evidence_key` gives.

    Raises
    ------
    ArgumentError
        A bad key (:func:`key_parts`), or two keys of ``mapping`` that are the same key
        once normalised (naming both): one would silently replace the other.

    Examples
    --------
    >>> normalised_keys({(6, 7, ()): "a", (1, 2, ((2, 2, 0, 1),)): "b"})
    {(6, 7): 'a', (1, 2, ((2, 2, 0, 1),)): 'b'}
    >>> try:
    ...     normalised_keys({(6, 7): "a", (6, 7, ()): "b"})
    ... except ArgumentError as err:
    ...     print(err)
    evidence: keys (6, 7) and (6, 7, ()) are the same key (6, 7)
    """
    out, given = {}, {}
    for k, v in mapping.items():
        key = evidence_key(*key_parts(k))
        if key in out:
            raise ArgumentError(f"evidence: keys {given[key]!r} and {k!r} are the same key {key!r}")
        out[key], given[key] = v, k
    return out


def key_rect(n, key):
    """``((lo1, hi1), (lo2, hi2))`` of ``key`` as exact fractions of the unit square.

    Examples
    --------
    >>> key_rect(8, (6, 7, ((2, 2, 0, 1),)))
    ((Fraction(3, 4), Fraction(13, 16)), (Fraction(15, 16), Fraction(1, 1)))
    """
    return cell_rect(n, *key_parts(key))


def key_area(n, key):
    """Exact share of the square's area of ``key``.

    Examples
    --------
    >>> key_area(8, (1, 2)), key_area(8, (1, 2, ((2, 2, 0, 0), (1, 2, 0, 1))))
    (Fraction(1, 64), Fraction(1, 512))
    """
    (lo1, hi1), (lo2, hi2) = key_rect(n, key)
    return (hi1 - lo1) * (hi2 - lo2)


def key_sides(n, key):
    """``(side along t1, side along t2)`` of ``key``: exact fractions of the square's sides.

    Examples
    --------
    >>> key_sides(8, (0, 0, ((2, 2, 1, 1), (2, 2, 0, 0))))
    (Fraction(1, 32), Fraction(1, 32))
    """
    (lo1, hi1), (lo2, hi2) = key_rect(n, key)
    return hi1 - lo1, hi2 - lo2


def key_to_json(key):
    """``[i, j]`` or ``[i, j, [[P1, P2, a, b], ...]]``: a key as JSON-ready lists.

    Examples
    --------
    >>> key_to_json((6, 7)), key_to_json((6, 7, ((2, 2, 0, 1),)))
    ([6, 7], [6, 7, [[2, 2, 0, 1]]])
    """
    i, j, path = key_parts(key)
    return [i, j, [list(s) for s in path]] if path else [i, j]


def key_from_json(item):
    """The inverse of :func:`key_to_json` (``[i, j, []]`` is the whole cell too).

    Examples
    --------
    >>> key_from_json([6, 7, [[2, 2, 0, 1]]]), key_from_json([6, 7])
    ((6, 7, ((2, 2, 0, 1),)), (6, 7))
    """
    return evidence_key(*key_parts(tuple(item)))


def key_file_name(key):
    """The evidence file name of ``key``: ``box_i_j.npz`` or ``box_i_j_P1xP2-a-b...npz``.

    Examples
    --------
    >>> key_file_name((6, 7)), key_file_name((6, 7, ((2, 2, 0, 1), (2, 2, 1, 1))))
    ('box_6_7.npz', 'box_6_7_2x2-0-1_2x2-1-1.npz')
    """
    i, j, path = key_parts(key)
    steps = "".join(f"_{p1}x{p2}-{a}-{b}" for p1, p2, a, b in path)
    return f"box_{i}_{j}{steps}.npz"


def parse_key_file_name(name, n):
    """The key of evidence file ``name`` (a base name) in an ``n x n`` partition.

    Raises
    ------
    ArgumentError
        Naming the file when it is not ``box_i_j[_P1xP2-a-b...].npz`` written as
        :func:`key_file_name` writes it (no leading zeros), when ``(i, j)`` is outside
        ``n x n``, or a step has ``P1 x P2`` below two pieces, ``a >= P1`` or ``b >= P2``.

    Examples
    --------
    >>> parse_key_file_name("box_6_7_2x2-0-1_2x2-1-1.npz", 8)
    (6, 7, ((2, 2, 0, 1), (2, 2, 1, 1)))
    >>> try:
    ...     parse_key_file_name("box_6_7_2x2-2-0.npz", 8)
    ... except ArgumentError as err:
    ...     print(err)
    evidence: 'box_6_7_2x2-2-0.npz': step 1 (2x2-2-0) has a piece outside 2 x 2
    """
    bad = f"evidence: '{name}'"
    if not (name.startswith("box_") and name.endswith(".npz")):
        raise ArgumentError(f"{bad} is not named box_<i>_<j>[_<P1>x<P2>-<a>-<b>...].npz")
    parts = name[4:-4].split("_")
    try:
        if len(parts) < 2:
            raise ValueError
        i, j = (int(v) for v in parts[:2])
        path = []
        for text in parts[2:]:
            m = _STEP.fullmatch(text)
            if m is None:
                raise ValueError
            path.append(tuple(int(v) for v in m.groups()))
    except ValueError:
        raise ArgumentError(
            f"{bad} is not named box_<i>_<j>[_<P1>x<P2>-<a>-<b>...].npz with integers"
        ) from None
    key = evidence_key(i, j, path)
    if key_file_name(key) != name:
        raise ArgumentError(f"{bad} is not written as {key_file_name(key)!r} (leading zeros?)")
    if not (0 <= i < n and 0 <= j < n):
        raise ArgumentError(f"{bad}: cell ({i}, {j}) is outside the {n} x {n} partition")
    for k, (p1, p2, a, b) in enumerate(path, 1):
        if p1 < 1 or p2 < 1 or p1 * p2 < 2:
            raise ArgumentError(f"{bad}: step {k} ({p1}x{p2}-{a}-{b}) splits into fewer than 2")
        if not (a < p1 and b < p2):
            raise ArgumentError(
                f"{bad}: step {k} ({p1}x{p2}-{a}-{b}) has a piece outside {p1} x {p2}"
            )
    return key


def _prefixes(key):
    """The keys strictly containing ``key`` in its split tree."""
    i, j, path = key_parts(key)
    return [evidence_key(i, j, path[:k]) for k in range(len(path))]


def check_split_tree(keys, n, names=None):
    """Refuse keys that are not the leaves of one split tree of the ``n x n`` grid.

    Parameters
    ----------
    keys : iterable
        Evidence keys (:func:`evidence_key`).
    n : int
    names : dict, optional
        ``{key: file name}`` to name in the errors (default: the keys themselves).

    Raises
    ------
    ArgumentError
        A cell outside ``n x n`` or a bad step (:func:`robustmb.analysis.sub_box.cell_rect`);
        a key given twice, possibly spelt two ways (naming both); a key inside another
        (naming both); two split shapes under one cell or piece (naming both keys): their
        pieces would overlap.

    Examples
    --------
    >>> check_split_tree([(0, 0), (0, 1, ((2, 2, 0, 0),)), (0, 1, ((2, 2, 1, 1),))], 2)
    >>> try:
    ...     check_split_tree([(0, 1), (0, 1, ((2, 2, 0, 0),))], 2)
    ... except ArgumentError as err:
    ...     print(err)
    evidence: (0, 1, ((2, 2, 0, 0),)) lies inside (0, 1): overlapping evidence
    """
    given = list(keys)
    keys = [evidence_key(*key_parts(k)) for k in given]
    names = names or {}

    def label(k):
        return repr(names.get(k, k))

    first_of = {}
    for k, key in zip(given, keys, strict=True):
        if key in first_of:  # counted twice, its area would be too
            raise ArgumentError(
                f"evidence: keys {first_of[key]!r} and {k!r} are the same key {key!r}"
            )
        first_of[key] = k
    have = set(keys)
    shapes = {}
    for key in keys:
        cell_rect(n, *key_parts(key))  # validates the cell and every step
        for outer in _prefixes(key):
            if outer in have:
                raise ArgumentError(
                    f"evidence: {label(key)} lies inside {label(outer)}: overlapping evidence"
                )
        i, j, path = key_parts(key)
        for k, step in enumerate(path):
            node = evidence_key(i, j, path[:k])
            first = shapes.setdefault(node, (step[:2], key))
            if first[0] != step[:2]:
                raise ArgumentError(
                    f"evidence: {label(first[1])} and {label(key)} split {node} in two ways "
                    f"({first[0][0]}x{first[0][1]} and {step[0]}x{step[1]}): overlapping pieces"
                )


def uncovered_leaves(keys, n):
    """The parts of the square with no evidence, as keys: the uncovered leaves of the tree.

    A grid cell with no key is one leaf; inside a split cell or piece, each sibling
    piece (of the split shape of the keys below it) with no key below it is one leaf,
    recursively.  The keys and the leaves together tile the square, without overlap.

    Raises
    ------
    ArgumentError
        As :func:`check_split_tree`.

    Examples
    --------
    >>> uncovered_leaves([(0, 0), (1, 1, ((1, 2, 0, 0),))], 2)
    [(0, 1), (1, 0), (1, 1, ((1, 2, 0, 1),))]
    """
    keys = [evidence_key(*key_parts(k)) for k in keys]
    check_split_tree(keys, n)
    have = set(keys)
    nodes = {}  # split node -> its shape (check_split_tree: one per node)
    for key in keys:
        i, j, path = key_parts(key)
        for k, step in enumerate(path):
            nodes[evidence_key(i, j, path[:k])] = step[:2]
    out = []

    def visit(node):
        if node in have:
            return
        if node not in nodes:
            out.append(node)
            return
        i, j, path = key_parts(node)
        p1, p2 = nodes[node]
        for a in range(p1):
            for b in range(p2):
                visit(evidence_key(i, j, (*path, (p1, p2, a, b))))

    for i in range(n):
        for j in range(n):
            visit((i, j))
    return out


def covered_area(n, keys):
    """Exact share of the square covered by ``keys`` (leaves of one split tree: no overlap).

    Raises
    ------
    ArgumentError
        As :func:`check_split_tree`.

    Examples
    --------
    >>> covered_area(8, [(0, 0), (0, 1, ((2, 2, 0, 0),)), (0, 1, ((2, 2, 1, 1),))])
    Fraction(3, 128)
    """
    keys = [evidence_key(*key_parts(k)) for k in keys]
    check_split_tree(keys, n)
    return sum((key_area(n, k) for k in keys), Fraction(0))
