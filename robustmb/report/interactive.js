// Interactive SVG charts of a robustmb report (no library, no network access).
// Each JSON script block of class chart-data holds one chart: axes
// settings and series {kind: line | points | hline | vline, label, x, y, color, ...}
// (a line with "marker" also gets a dot of that radius at each point).
// Hover: values of every visible curve at the nearest computed point.  Drag: zoom on
// the x range (y follows the visible data).  Double click / reset button: full view.
(function () {
  "use strict";
  var NS = "http://www.w3.org/2000/svg"; // the SVG namespace name, not a download
  var W = 760, H = 330, L = 64, R = 16, T = 28, B = 44;

  function el(tag, attrs, parent, text) {
    var e = document.createElementNS(NS, tag);
    for (var k in attrs) if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function fmt(v) {
    if (v === null || !isFinite(v)) return "n/a";
    var a = Math.abs(v);
    return a !== 0 && (a < 1e-3 || a >= 1e5) ? v.toExponential(3) : String(Number(v.toPrecision(4)));
  }
  function niceTicks(lo, hi, log) {
    var out = [], k;
    if (log) {
      var a = Math.floor(Math.log10(lo)), b = Math.ceil(Math.log10(hi));
      var step = Math.max(1, Math.ceil((b - a) / 8));
      for (k = a; k <= b; k += step) out.push(Math.pow(10, k));
      if (out.filter(function (t) { return t >= lo && t <= hi; }).length < 2) {
        out = [];
        for (k = a; k <= b; k++) [1, 2, 5].forEach(function (m) { out.push(m * Math.pow(10, k)); });
      }
    } else {
      var raw = (hi - lo) / 6, mag = Math.pow(10, Math.floor(Math.log10(raw)));
      var st = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (s) { return s >= raw; });
      for (k = Math.ceil(lo / st) * st; k <= hi + 1e-9 * st; k += st) out.push(Math.abs(k) < 1e-12 * st ? 0 : k);
    }
    return out.filter(function (t) { return t >= lo * (1 - 1e-9) && t <= hi * (1 + 1e-9) || t === lo; });
  }

  function Chart(box, spec) {
    this.spec = spec;
    this.hidden = {};
    this.id = ++Chart.count;
    var self = this;
    this.svg = el("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": spec.title });
    box.appendChild(this.svg);
    var bar = document.createElement("div");
    bar.className = "legend";
    box.appendChild(bar);
    this.readout = document.createElement("div");
    this.readout.className = "readout";
    box.appendChild(this.readout);
    spec.series.forEach(function (s, i) {
      var item = document.createElement("span");
      item.style.color = s.color;
      item.textContent = (s.kind === "points" ? "● " : "— ") + s.label + (s.note ? " (" + s.note + ")" : "");
      item.title = "click to hide or show";
      item.addEventListener("click", function () {
        self.hidden[i] = !self.hidden[i];
        item.className = self.hidden[i] ? "off" : "";
        self.draw();
      });
      bar.appendChild(item);
    });
    var reset = document.createElement("button");
    reset.type = "button";
    reset.textContent = "reset zoom";
    reset.addEventListener("click", function () { self.reset(); });
    bar.appendChild(reset);
    this.reset();
    this.listen();
  }

  Chart.prototype.visible = function (kinds) {
    var self = this;
    return this.spec.series.filter(function (s, i) { return !self.hidden[i] && kinds.indexOf(s.kind) >= 0; });
  };
  Chart.prototype.ok = function (v, log) { return v !== null && isFinite(v) && (!log || v > 0); };
  Chart.prototype.reset = function () {
    var s = this.spec, self = this, xs = [];
    s.series.forEach(function (c) {
      if (c.kind === "line" || c.kind === "points")
        c.x.forEach(function (v) { if (self.ok(v, s.xlog)) xs.push(v); });
    });
    if (!xs.length) xs = [1, 10];
    this.x0 = Math.min.apply(null, xs);
    this.x1 = Math.max.apply(null, xs);
    if (this.x0 === this.x1) { this.x0 *= s.xlog ? 0.5 : 1; this.x1 = s.xlog ? this.x1 * 2 : this.x1 + 1; }
    this.autoY();
    this.draw();
  };
  Chart.prototype.autoY = function () {
    var s = this.spec, self = this, ys = [];
    this.visible(["line", "points"]).forEach(function (c) {
      for (var k = 0; k < c.x.length; k++)
        if (self.ok(c.y[k], s.ylog) && c.x[k] >= self.x0 && c.x[k] <= self.x1) ys.push(c.y[k]);
    });
    this.visible(["hline"]).forEach(function (c) { if (self.ok(c.y, s.ylog)) ys.push(c.y); });
    if (s.yzero) ys.push(0);
    if (!ys.length) ys = s.ylog ? [0.1, 10] : [0, 1];
    var lo = Math.min.apply(null, ys), hi = Math.max.apply(null, ys);
    if (s.ylog) { lo /= 1.25; hi *= 1.25; }
    else { var pad = 0.06 * (hi - lo || Math.abs(hi) || 1); hi += pad; if (!(s.yzero && lo === 0)) lo -= pad; }
    this.y0 = lo; this.y1 = hi;
  };
  Chart.prototype.px = function (x) {
    var s = this.spec, t = s.xlog ? (Math.log(x) - Math.log(this.x0)) / (Math.log(this.x1) - Math.log(this.x0))
      : (x - this.x0) / (this.x1 - this.x0);
    return L + t * (W - L - R);
  };
  Chart.prototype.py = function (y) {
    var s = this.spec, t = s.ylog ? (Math.log(y) - Math.log(this.y0)) / (Math.log(this.y1) - Math.log(this.y0))
      : (y - this.y0) / (this.y1 - this.y0);
    return H - B - t * (H - T - B);
  };
  Chart.prototype.xAt = function (px) {
    var t = (px - L) / (W - L - R);
    return this.spec.xlog ? Math.exp(Math.log(this.x0) + t * (Math.log(this.x1) - Math.log(this.x0)))
      : this.x0 + t * (this.x1 - this.x0);
  };
  // client coordinates of a data point (used by scripted checks of the page)
  Chart.prototype.toClient = function (x, y) {
    var r = this.svg.getBoundingClientRect();
    return [r.left + this.px(x) * r.width / W, r.top + this.py(y) * r.height / H];
  };

  Chart.prototype.draw = function () {
    var s = this.spec, self = this, svg = this.svg;
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    svg.setAttribute("data-xdomain", this.x0 + "," + this.x1);
    var clip = "rmb-clip-" + this.id;
    el("rect", { x: L, y: T, width: W - L - R, height: H - T - B }, el("clipPath", { id: clip }, el("defs", {}, svg)));
    el("text", { x: L, y: 16, "font-weight": "bold" }, svg, s.title);
    niceTicks(this.x0, this.x1, s.xlog).forEach(function (t) {
      var x = self.px(t);
      el("line", { x1: x, x2: x, y1: T, y2: H - B, stroke: "#e4e4e4" }, svg);
      el("text", { x: x, y: H - B + 14, "text-anchor": "middle" }, svg, fmt(t));
    });
    niceTicks(this.y0, this.y1, s.ylog).forEach(function (t) {
      var y = self.py(t);
      el("line", { x1: L, x2: W - R, y1: y, y2: y, stroke: "#e4e4e4" }, svg);
      el("text", { x: L - 4, y: y + 4, "text-anchor": "end" }, svg, fmt(t));
    });
    el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "none", stroke: "#888" }, svg);
    el("text", { x: (L + W - R) / 2, y: H - 8, "text-anchor": "middle" }, svg, s.xlabel);
    el("text", { x: 14, y: (T + H - B) / 2, "text-anchor": "middle",
      transform: "rotate(-90 14 " + (T + H - B) / 2 + ")" }, svg, s.ylabel);
    var g = el("g", { "clip-path": "url(#" + clip + ")" }, svg);
    this.visible(["line", "points", "hline", "vline"]).forEach(function (c) {
      if (c.kind === "hline") {
        if (self.ok(c.y, s.ylog)) el("line", { x1: L, x2: W - R, y1: self.py(c.y), y2: self.py(c.y),
          stroke: c.color, "stroke-dasharray": c.dash, "stroke-width": 1.2, "data-label": c.label }, g);
        return;
      }
      if (c.kind === "vline") {
        el("line", { x1: self.px(c.x), x2: self.px(c.x), y1: T, y2: H - B, stroke: c.color,
          "stroke-dasharray": c.dash, "data-label": c.label }, g);
        return;
      }
      var d = "", pen = false, n = 0;
      for (var k = 0; k < c.x.length; k++) {
        if (!self.ok(c.x[k], s.xlog) || !self.ok(c.y[k], s.ylog)) { pen = false; continue; }
        var X = self.px(c.x[k]).toFixed(2), Y = self.py(c.y[k]).toFixed(2);
        if (c.x[k] >= self.x0 && c.x[k] <= self.x1) n++; // points in view
        if (c.kind === "points" || c.marker)
          el("circle", { cx: X, cy: Y, r: c.marker || 5, fill: c.color, "data-label": c.label }, g);
        if (c.kind === "line") { d += (pen ? "L" : "M") + X + " " + Y; pen = true; }
      }
      if (c.kind === "line") el("path", { d: d, fill: "none", stroke: c.color, "stroke-width": c.width,
        "stroke-dasharray": c.dash, "data-label": c.label, "data-points": n }, g);
    });
    this.cursor = el("g", {}, svg);
    this.band = el("rect", { y: T, height: H - T - B, width: 0, fill: "rgba(31,119,180,0.15)" }, svg);
    this.overlay = el("rect", { x: L, y: T, width: W - L - R, height: H - T - B, fill: "transparent" }, svg);
  };

  Chart.prototype.localX = function (ev) {
    var r = this.svg.getBoundingClientRect();
    return (ev.clientX - r.left) * W / r.width;
  };
  Chart.prototype.hover = function (px) {
    var s = this.spec, self = this, xq = this.xAt(px), parts = [], best = null;
    while (this.cursor.firstChild) this.cursor.removeChild(this.cursor.firstChild);
    this.visible(["line", "points"]).forEach(function (c) {
      var kbest = -1, dbest = Infinity;
      for (var k = 0; k < c.x.length; k++) {
        if (!self.ok(c.x[k], s.xlog) || !self.ok(c.y[k], s.ylog) || c.x[k] < self.x0 || c.x[k] > self.x1) continue;
        var dist = Math.abs(self.px(c.x[k]) - px);
        if (dist < dbest) { dbest = dist; kbest = k; }
      }
      if (kbest < 0 || (c.kind === "points" && dbest > 8)) return;
      if (best === null || dbest < best.d) best = { d: dbest, x: c.x[kbest] };
      el("circle", { cx: self.px(c.x[kbest]), cy: self.py(c.y[kbest]), r: 3.5, fill: "none",
        stroke: c.color, "stroke-width": 1.5 }, self.cursor);
      var item = document.createElement("span");
      item.className = "value";
      item.setAttribute("data-label", c.label);
      var xtext = c.xshow ? c.xshow[kbest] : fmt(c.x[kbest]);
      item.setAttribute("data-x", c.xshow ? c.xshow[kbest] : c.x[kbest]);
      item.setAttribute("data-y", c.y[kbest]);
      item.textContent = c.label + ": " + fmt(c.y[kbest]) + " at " + s.xname + " = " + xtext;
      parts.push(item);
    });
    this.visible(["hline"]).forEach(function (c) {
      var item = document.createElement("span");
      item.className = "value";
      item.setAttribute("data-label", c.label);
      item.setAttribute("data-y", c.y);
      item.textContent = c.label;
      parts.push(item);
    });
    if (best !== null) el("line", { x1: this.px(best.x), x2: this.px(best.x), y1: T, y2: H - B,
      stroke: "#999", "stroke-dasharray": "2 2" }, this.cursor);
    this.readout.textContent = "";
    parts.forEach(function (p, i) {
      if (i) self.readout.appendChild(document.createTextNode(" · "));
      self.readout.appendChild(p);
    });
  };
  Chart.prototype.listen = function () {
    var self = this, start = null;
    this.svg.addEventListener("mousedown", function (ev) { start = self.localX(ev); ev.preventDefault(); });
    this.svg.addEventListener("mousemove", function (ev) {
      var x = Math.min(Math.max(self.localX(ev), L), W - R);
      if (start !== null) {
        self.band.setAttribute("x", Math.min(start, x));
        self.band.setAttribute("width", Math.abs(x - start));
      }
      self.hover(x);
    });
    this.svg.addEventListener("mouseup", function (ev) {
      var x = Math.min(Math.max(self.localX(ev), L), W - R);
      if (start !== null && Math.abs(x - start) > 5) {
        var a = self.xAt(Math.min(start, x)), b = self.xAt(Math.max(start, x));
        self.x0 = a; self.x1 = b;
        self.autoY();
        self.draw();
      }
      start = null;
      self.band.setAttribute("width", 0);
    });
    this.svg.addEventListener("mouseleave", function () { start = null; self.band.setAttribute("width", 0); });
    this.svg.addEventListener("dblclick", function () { self.reset(); });
  };
  Chart.count = 0;

  window.rmbCharts = [];
  var blocks = document.querySelectorAll("script.chart-data");
  for (var i = 0; i < blocks.length; i++) {
    var spec = JSON.parse(blocks[i].textContent);
    window.rmbCharts.push(new Chart(blocks[i].parentNode, spec));
  }
})();
