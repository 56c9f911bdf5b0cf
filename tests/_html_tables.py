"""Tables of an HTML report, read with html.parser (for the report tests)."""

from html.parser import HTMLParser

import pytest


class _Tables(HTMLParser):
    """``{table id: [row: [(text, attrs)]]}`` and the text of the page."""

    def __init__(self):
        super().__init__()
        self.tables, self.text = {}, []
        self._table = self._row = self._cell = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "table":
            self._table = self.tables.setdefault(attrs.get("id"), [])
        elif tag == "tr" and self._table is not None:
            self._row = []
            self._table.append((attrs, self._row))
        elif tag in ("td", "th") and self._row is not None:
            self._cell = [attrs, ""]

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append((self._cell[1].strip(), self._cell[0]))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data):
        self.text.append(data)
        if self._cell is not None:
            self._cell[1] += data


def parse_tables(path):
    p = _Tables()
    p.feed(path.read_text(encoding="utf-8"))
    p.close()
    return p


def table_rows(table):
    """Data rows as ``(row attrs, {column header: (text, attrs)})``."""
    header = [text for text, _ in table[0][1]]
    return [(attrs, dict(zip(header, cells, strict=True))) for attrs, cells in table[1:]]


def number_cell(cell, value):
    """The cell's exact ``data-value`` equals ``value``; its text is ``value`` rounded."""
    text, attrs = cell
    if value is None:
        assert attrs["data-value"] == "none" and text == "-"
        return
    assert float(attrs["data-value"]) == value
    assert float(text.rstrip("%")) == pytest.approx(value, rel=5e-6)
