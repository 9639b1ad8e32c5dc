/* relay viz: the viewer of one graph. No dependencies, no network.
 *
 * The page holds the graph as JSON (#relay-graph): nodes, groups, edges and,
 * per group, its layers (from relay_text/viz/layout.py). place.js places
 * the boxes with the steps of relay_text/viz/coords.py; this script draws
 * them as SVG in tiles: only tiles in view are in the document, and when so
 * far out that more than FAR_NODES boxes would be in view, a canvas draws
 * the picture instead. It handles moving around, selection and details,
 * search, and folding groups.
 */
(function () {
  "use strict";

  var timings = { start: performance.now() };
  var data = JSON.parse(document.getElementById("relay-graph").textContent);
  timings.parsed = performance.now();
  var L = data.layout;
  var N = data.nodes, GR = data.groups, E = data.edges;
  var S = data.strings;
  var nNodes = N.kind.length, nGroups = GR.kind.length, nEdges = E.src.length;
  var TILE = 1600, FAR_NODES = 2500, FAR_SCALE = 0.3;
  var SVGNS = "http://www.w3.org/2000/svg";

  // Placement: place.js, the steps of coords.py
  var placement = relayPlacement(data);
  var place = placement.place, outermostFirst = placement.outermostFirst;

  // ---------------------------------------------------------------------
  // State

  var state = {
    collapsed: new Set(data.collapsed || []),
    orthogonal: data.orthogonal !== false,
    placed: null,
    scale: 1, tx: 0, ty: 0,
    selected: -1, selectedGroup: -1,
    tiles: [], marks: 0, hlEdges: new Set(),
    hits: [], hit: -1, hitSet: new Set(),
    far: false, complete: false
  };

  var stage = document.getElementById("stage");
  var svg = document.getElementById("svg");
  var viewport = document.getElementById("viewport");
  var layerGroups = document.getElementById("lg"), layerEdges = document.getElementById("le"), layerNodes = document.getElementById("ln");
  var farCanvas = document.getElementById("far");
  var minimap = document.getElementById("minimap");
  var details = document.getElementById("details"), info = document.getElementById("info");
  var searchInput = document.getElementById("search"), hitsLabel = document.getElementById("hits"), results = document.getElementById("results");

  // users of each node or group (for the details panel)
  var usersOf = new Map(), inputsOf = new Map();
  for (var ei = 0; ei < nEdges; ei++) {
    var src = E.src[ei], dst = E.dst[ei];
    if (!usersOf.has(src)) usersOf.set(src, []);
    usersOf.get(src).push(ei);
    if (!inputsOf.has(dst)) inputsOf.set(dst, []);
    inputsOf.get(dst).push(ei);
  }

  function esc(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  }
  function clip(text, most) { return text.length <= most ? text : text.slice(0, most - 1) + "\u2026"; }
  function num(v) { return Math.round(v * 10) / 10; }
  function thousands(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  // ---------------------------------------------------------------------
  // Drawing

  function relayout(keep) {
    var before = keep !== undefined && state.placed ? groupScreenPos(keep) : null;
    state.placed = place(state.collapsed, state.orthogonal);
    if (before) {
      var after = groupScreenPos(keep);
      state.tx += before[0] - after[0];
      state.ty += before[1] - after[1];
    }
    build();
    minimapImage = null;
    updateView();
  }

  function groupScreenPos(g) {
    var b = state.placed.groups;
    return [b[4 * g] * state.scale + state.tx, b[4 * g + 1] * state.scale + state.ty];
  }

  function tileKey(x, y) { return Math.floor(x / TILE) + "," + Math.floor(y / TILE); }

  function build() {
    var placed = state.placed, tiles = new Map(), i;
    function tileAt(x, y) {
      var key = tileKey(x, y), t = tiles.get(key);
      if (!t) {
        t = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity, nodes: [], routes: [], built: false, on: false, marks: -1, nodeEl: null, edgeEl: null };
        tiles.set(key, t);
      }
      return t;
    }
    function grow(t, x0, y0, x1, y1) {
      if (x0 < t.x0) t.x0 = x0;
      if (y0 < t.y0) t.y0 = y0;
      if (x1 > t.x1) t.x1 = x1;
      if (y1 > t.y1) t.y1 = y1;
    }
    for (i = 0; i < nNodes; i++) {
      if (!placed.shownNodes[i]) continue;
      var x = placed.nodes[4 * i], y = placed.nodes[4 * i + 1], w = placed.nodes[4 * i + 2], h = placed.nodes[4 * i + 3];
      var t = tileAt(x + w / 2, y + h / 2);
      t.nodes.push(i);
      grow(t, x, y, x + w, y + h);
    }
    // A route is cut into pieces no larger than a tile, each drawn with
    // the tile it lies in: a long edge is then drawn only where it is seen.
    for (i = 0; i < placed.routes.length; i++) {
      var pts = placed.routes[i][1], first = 0;
      while (first < pts.length - 2) {
        var x0 = pts[first], y0 = pts[first + 1], x1 = x0, y1 = y0, end = first + 2;
        while (end < pts.length) {
          var px = pts[end], py = pts[end + 1];
          var nx0 = Math.min(x0, px), ny0 = Math.min(y0, py), nx1 = Math.max(x1, px), ny1 = Math.max(y1, py);
          if (end > first + 2 && (nx1 - nx0 > TILE || ny1 - ny0 > TILE)) break;
          x0 = nx0; y0 = ny0; x1 = nx1; y1 = ny1;
          end += 2;
        }
        var te = tileAt((x0 + x1) / 2, (y0 + y1) / 2);
        te.routes.push([i, first, end, end >= pts.length]);  // route, its points [first, end), the last piece?
        grow(te, x0, y0, x1, y1);
        first = end - 2;
      }
    }
    layerEdges.textContent = "";
    layerNodes.textContent = "";
    state.tiles = Array.from(tiles.values());
    buildGroups();
  }

  function buildGroups() {
    var placed = state.placed, parts = [];
    for (var k = 0; k < nGroups; k++) {
      var g = outermostFirst[k];
      if (!placed.shownGroups[g]) continue;
      var x = placed.groups[4 * g], y = placed.groups[4 * g + 1], w = placed.groups[4 * g + 2], h = placed.groups[4 * g + 3];
      var folded = placed.collapsed.has(g);
      parts.push('<g class="group g-' + data.groupKinds[GR.kind[g]] + (folded ? " folded" : "") + '" data-g="' + g + '">' +
        '<rect x="' + num(x) + '" y="' + num(y) + '" width="' + num(w) + '" height="' + num(h) + '" rx="6"></rect>' +
        '<rect class="head" x="' + num(x) + '" y="' + num(y) + '" width="' + num(w) + '" height="' + L.HEADER + '"></rect>' +
        '<text class="title" x="' + num(x + L.PAD_X) + '" y="' + num(y + L.HEADER / 2 + 4) + '">' + esc((folded ? "\u25b8 " : "\u25be ") + clip(GR.label[g], 60)) + "</text></g>");
    }
    layerGroups.innerHTML = parts.join("");
  }

  function buildTile(t) {
    var placed = state.placed, parts = [], i;
    t.edgeEl = document.createElementNS(SVGNS, "g");
    t.nodeEl = document.createElementNS(SVGNS, "g");
    for (i = 0; i < t.routes.length; i++) {
      var piece = t.routes[i], route = placed.routes[piece[0]], edge = route[0], pts = route[1];
      var d = "M" + num(pts[piece[1]]) + "," + num(pts[piece[1] + 1]);
      for (var k = piece[1] + 2; k < piece[2]; k += 2) d += " L" + num(pts[k]) + "," + num(pts[k + 1]);
      parts.push('<path class="edge e-' + data.roles[E.role[edge]] + '" data-e="' + edge + '" d="' + d + '"' + (route[2] && piece[3] ? ' marker-end="url(#arrow)"' : "") + "></path>");
    }
    t.edgeEl.innerHTML = parts.join("");
    parts = [];
    for (i = 0; i < t.nodes.length; i++) {
      var n = t.nodes[i];
      var x = placed.nodes[4 * n], y = placed.nodes[4 * n + 1], w = placed.nodes[4 * n + 2], h = placed.nodes[4 * n + 3];
      var caption = clip(S[N.caption[n]], L.MAX_CAPTION);
      parts.push('<g class="node k-' + data.nodeKinds[N.kind[n]] + (N.link[n] ? " link" : "") + '" data-id="' + n + '">' +
        '<rect x="' + num(x) + '" y="' + num(y) + '" width="' + num(w) + '" height="' + num(h) + '" rx="4"></rect>' +
        '<text class="l" x="' + num(x + w / 2) + '" y="' + num(y + 15) + '" text-anchor="middle">' + esc(clip(N.label[n], L.MAX_LABEL)) + "</text>" +
        (caption ? '<text class="c" x="' + num(x + w / 2) + '" y="' + num(y + 29) + '" text-anchor="middle">' + esc(caption) + "</text>" : "") +
        "</g>");
    }
    t.nodeEl.innerHTML = parts.join("");
    t.built = true;
  }

  // Marks (selection, search hits, the selected box's edges) are applied
  // to a tile when it is shown and whenever they change while it is.
  function refreshMarks(t) {
    t.marks = state.marks;
    var kids = t.nodeEl.children, i, el;
    for (i = 0; i < t.nodes.length; i++) {
      el = kids[i];
      var n = t.nodes[i];
      el.classList.toggle("sel", n === state.selected);
      el.classList.toggle("hit", state.hitSet.has(n));
    }
    kids = t.edgeEl.children;
    for (i = 0; i < t.routes.length; i++) kids[i].classList.toggle("hl", state.hlEdges.has(state.placed.routes[t.routes[i][0]][0]));
  }

  function marksChanged() {
    state.marks++;
    state.hlEdges = new Set();
    var ref = state.selected >= 0 ? state.selected : (state.selectedGroup >= 0 ? ~state.selectedGroup : null);
    if (ref !== null) {
      (usersOf.get(ref) || []).forEach(function (e) { state.hlEdges.add(e); });
      (inputsOf.get(ref) || []).forEach(function (e) { state.hlEdges.add(e); });
    }
    state.tiles.forEach(function (t) { if (t.on && t.built) refreshMarks(t); });
    var groups = layerGroups.children;
    for (var i = 0; i < groups.length; i++) groups[i].classList.toggle("sel", +groups[i].dataset.g === state.selectedGroup);
    updateView();
  }

  function stageSize() { return [stage.clientWidth, stage.clientHeight]; }

  function viewRect() {
    var s = stageSize();
    return [-state.tx / state.scale, -state.ty / state.scale, (s[0] - state.tx) / state.scale, (s[1] - state.ty) / state.scale];
  }

  var frame = null;
  function updateView() {
    if (frame !== null) return;
    frame = requestAnimationFrame(function () { frame = null; render(); });
  }

  function render() {
    viewport.setAttribute("transform", "translate(" + state.tx + "," + state.ty + ") scale(" + state.scale + ")");
    var r = viewRect(), visible = 0, i, t;
    for (i = 0; i < state.tiles.length; i++) {
      t = state.tiles[i];
      t.in = t.x1 >= r[0] && t.x0 <= r[2] && t.y1 >= r[1] && t.y0 <= r[3];
      if (t.in) visible += t.nodes.length;
    }
    var far = visible > FAR_NODES && state.scale < FAR_SCALE;
    state.far = far;
    var farOut = state.scale < 0.35;
    if (farOut && state.lineScale !== state.scale) {
      svg.style.setProperty("--line", (1 / state.scale).toFixed(3) + "px");
      state.lineScale = state.scale;
    }
    svg.classList.toggle("far-out", farOut);
    viewport.style.display = far ? "none" : "";
    for (i = 0; i < state.tiles.length; i++) {
      t = state.tiles[i];
      var on = t.in && !far;
      if (on && !t.on) {
        if (!t.built) buildTile(t);
        layerEdges.appendChild(t.edgeEl);
        layerNodes.appendChild(t.nodeEl);
      } else if (!on && t.on) {
        t.edgeEl.remove();
        t.nodeEl.remove();
      }
      t.on = on;
      if (on && t.marks !== state.marks) refreshMarks(t);
    }
    drawFar(far);
    drawMinimap();
    if (!state.complete) {
      state.complete = true;
      requestAnimationFrame(function () {
        timings.rendered = performance.now();
        document.body.dataset.state = "complete";
      });
    }
  }

  var COLORS = {
    op: "#c9daf3", call: "#f6ddb0", constructor: "#dccbf3", tuple: "#dfe4e9", project: "#dfe4e9",
    param: "#b9e3c4", "const": "#e2e2e2", pattern: "#c3e8e8", global: "#f6ddb0", ref: "#f3cccc"
  };

  // From afar the picture is drawn once for a region twice the window's
  // size, then moved while the view pans inside it; it is drawn again
  // when the zoom, the marks or the layout change, or the view leaves it.
  var farCache = null;

  function drawFar(far) {
    var ctx = farCanvas.getContext("2d"), s = stageSize(), ratio = window.devicePixelRatio || 1;
    if (farCanvas.width !== Math.round(s[0] * ratio) || farCanvas.height !== Math.round(s[1] * ratio)) {
      farCanvas.width = Math.round(s[0] * ratio);
      farCanvas.height = Math.round(s[1] * ratio);
    }
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, farCanvas.width, farCanvas.height);
    if (!far) { farCache = null; return; }
    var r = viewRect();
    var c = farCache;
    if (!c || c.scale !== state.scale || c.marks !== state.marks || c.placed !== state.placed ||
        r[0] < c.x0 || r[1] < c.y0 || r[2] > c.x1 || r[3] > c.y1) {
      var w = r[2] - r[0], h = r[3] - r[1];
      c = farCache = { scale: state.scale, marks: state.marks, placed: state.placed, x0: r[0] - w / 2, y0: r[1] - h / 2, x1: r[2] + w / 2, y1: r[3] + h / 2 };
      c.canvas = document.createElement("canvas");
      c.canvas.width = Math.round(2 * s[0] * ratio);
      c.canvas.height = Math.round(2 * s[1] * ratio);
      paintFar(c.canvas.getContext("2d"), c, ratio);
    }
    ctx.drawImage(c.canvas, Math.round((c.x0 - r[0]) * state.scale * ratio), Math.round((c.y0 - r[1]) * state.scale * ratio));
  }

  function paintFar(ctx, c, ratio) {
    var placed = state.placed, b = placed.nodes, i, k, n, scale = c.scale;
    var shown = state.tiles.filter(function (t) { return t.x1 >= c.x0 && t.x0 <= c.x1 && t.y1 >= c.y0 && t.y0 <= c.y1; });
    ctx.setTransform(ratio * scale, 0, 0, ratio * scale, -ratio * scale * c.x0, -ratio * scale * c.y0);
    ctx.lineWidth = 1 / scale;
    ctx.strokeStyle = "#b8c4cf";
    ctx.beginPath();
    for (var g = 0; g < nGroups; g++) {
      if (placed.shownGroups[g]) ctx.rect(placed.groups[4 * g], placed.groups[4 * g + 1], placed.groups[4 * g + 2], placed.groups[4 * g + 3]);
    }
    ctx.stroke();
    ctx.strokeStyle = "#9aa7b4";
    ctx.beginPath();
    shown.forEach(function (t) {
      for (i = 0; i < t.routes.length; i++) {
        var piece = t.routes[i], pts = placed.routes[piece[0]][1];
        ctx.moveTo(pts[piece[1]], pts[piece[1] + 1]);
        for (k = piece[1] + 2; k < piece[2]; k += 2) ctx.lineTo(pts[k], pts[k + 1]);
      }
    });
    ctx.stroke();
    // boxes, one colour at a time; at least a pixel, so that each shows
    var least = 1 / scale, byKind = data.nodeKinds.map(function () { return []; }), marked = [];
    shown.forEach(function (t) {
      for (i = 0; i < t.nodes.length; i++) {
        n = t.nodes[i];
        if (n === state.selected || state.hitSet.has(n)) marked.push(n); else byKind[N.kind[n]].push(n);
      }
    });
    function boxes(list) {
      for (var j = 0; j < list.length; j++) {
        var m = list[j];
        ctx.fillRect(b[4 * m], b[4 * m + 1], Math.max(b[4 * m + 2], least), Math.max(b[4 * m + 3], least));
      }
    }
    byKind.forEach(function (list, kind) {
      if (!list.length) return;
      ctx.fillStyle = COLORS[data.nodeKinds[kind]];
      boxes(list);
    });
    ctx.fillStyle = "#f2c200";
    boxes(marked.filter(function (m) { return m !== state.selected; }));
    ctx.fillStyle = "#d0312d";
    boxes(marked.filter(function (m) { return m === state.selected; }));
  }

  var minimapImage = null, minimapScale = 1, minimapOff = [0, 0];
  function drawMinimap() {
    var placed = state.placed, ctx = minimap.getContext("2d"), W = minimap.width, H = minimap.height;
    if (!placed || placed.width <= 0 || placed.height <= 0) { ctx.clearRect(0, 0, W, H); minimap.style.display = "none"; return; }
    minimap.style.display = "";
    if (minimapImage === null) {
      minimapScale = Math.min((W - 8) / placed.width, (H - 8) / placed.height);
      minimapOff = [(W - placed.width * minimapScale) / 2, (H - placed.height * minimapScale) / 2];
      var off = document.createElement("canvas");
      off.width = W; off.height = H;
      var c = off.getContext("2d");
      c.setTransform(minimapScale, 0, 0, minimapScale, minimapOff[0], minimapOff[1]);
      c.lineWidth = 1 / minimapScale;
      c.strokeStyle = "#b8c4cf";
      for (var g = 0; g < nGroups; g++) {
        if (placed.shownGroups[g] && GR.parent[g] < 0) c.strokeRect(placed.groups[4 * g], placed.groups[4 * g + 1], placed.groups[4 * g + 2], placed.groups[4 * g + 3]);
      }
      c.fillStyle = "#6f8bb3";
      var least = 1.5 / minimapScale;
      for (var n = 0; n < nNodes; n++) {
        if (!placed.shownNodes[n]) continue;
        c.fillRect(placed.nodes[4 * n], placed.nodes[4 * n + 1], Math.max(placed.nodes[4 * n + 2], least), Math.max(placed.nodes[4 * n + 3], least));
      }
      minimapImage = off;
    }
    ctx.clearRect(0, 0, W, H);
    ctx.drawImage(minimapImage, 0, 0);
    var r = viewRect();
    ctx.strokeStyle = "#d0312d";
    ctx.lineWidth = 1.5;
    var x0 = r[0] * minimapScale + minimapOff[0], y0 = r[1] * minimapScale + minimapOff[1];
    ctx.strokeRect(x0, y0, Math.max((r[2] - r[0]) * minimapScale, 3), Math.max((r[3] - r[1]) * minimapScale, 3));
  }

  // ---------------------------------------------------------------------
  // Moving around

  function zoomAt(factor, sx, sy) {
    var scale = Math.min(4, Math.max(1e-4, state.scale * factor));
    factor = scale / state.scale;
    state.tx = sx - (sx - state.tx) * factor;
    state.ty = sy - (sy - state.ty) * factor;
    state.scale = scale;
    updateView();
  }

  function fitBox(x, y, w, h, most) {
    var s = stageSize(), pad = 24, scale = Math.min((s[0] - 2 * pad) / Math.max(w, 1), (s[1] - 2 * pad) / Math.max(h, 1), most || 1.5);
    state.scale = scale;
    state.tx = (s[0] - w * scale) / 2 - x * scale;
    state.ty = (s[1] - h * scale) / 2 - y * scale;
    updateView();
  }

  function fit() {
    var p = state.placed;
    if (p) fitBox(0, 0, p.width, p.height);
  }

  function showGroup(g) {
    // the function at a readable size: its width, or the whole of it if that is small, from its top
    var b = state.placed.groups, s = stageSize(), pad = 24;
    var x = b[4 * g], y = b[4 * g + 1], w = b[4 * g + 2], h = b[4 * g + 3];
    var scale = Math.min((s[0] - 2 * pad) / Math.max(w, 1), 1);
    if (h * scale < s[1] - 2 * pad) { fitBox(x, y, w, h, 1); return; }
    state.scale = scale;
    state.tx = (s[0] - w * scale) / 2 - x * scale;
    state.ty = pad - y * scale;
    updateView();
  }

  function centreOn(x, y) {
    var s = stageSize();
    if (state.scale < 0.6) state.scale = 0.9;
    state.tx = s[0] / 2 - x * state.scale;
    state.ty = s[1] / 2 - y * state.scale;
    updateView();
  }

  function expandAncestors(g) {
    var changed = false;
    while (g >= 0) {
      if (state.collapsed.has(g)) { state.collapsed.delete(g); changed = true; }
      g = GR.parent[g];
    }
    if (changed) relayout();
    return changed;
  }

  function goToNode(n) {
    expandAncestors(N.group[n]);
    var b = state.placed.nodes;
    centreOn(b[4 * n] + b[4 * n + 2] / 2, b[4 * n + 1] + b[4 * n + 3] / 2);
    select(n);
  }

  function goToGroup(g) {
    var top = g;
    while (GR.parent[top] >= 0) top = GR.parent[top];
    functions.value = String(top);
    expandAncestors(GR.parent[g]);
    if (state.collapsed.has(g)) { state.collapsed.delete(g); relayout(); }
    showGroup(g);
    selectGroup(g);
  }

  function goToLink(link) {
    if (link.indexOf("group:") === 0) { goToGroup(+link.slice(6)); return; }
    for (var g = 0; g < nGroups; g++) if (GR.parent[g] < 0 && GR.name[g] === link) { goToGroup(g); return; }
  }

  var drag = null;
  stage.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) return;
    drag = { x: ev.clientX, y: ev.clientY, tx: state.tx, ty: state.ty, moved: false };
    stage.setPointerCapture(ev.pointerId);
  });
  stage.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (!drag.moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    drag.moved = true;
    stage.classList.add("dragging");
    state.tx = drag.tx + dx; state.ty = drag.ty + dy;
    updateView();
  });
  stage.addEventListener("pointerup", function (ev) {
    var was = drag;
    drag = null;
    stage.classList.remove("dragging");
    if (was && !was.moved) click(ev);
  });
  stage.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var rect = stage.getBoundingClientRect();
    var delta = ev.deltaMode === 1 ? ev.deltaY * 16 : ev.deltaY;
    zoomAt(Math.exp(-delta * (ev.ctrlKey ? 0.01 : 0.0015)), ev.clientX - rect.left, ev.clientY - rect.top);
  }, { passive: false });
  stage.addEventListener("dblclick", function (ev) {
    var el = document.elementFromPoint(ev.clientX, ev.clientY);
    var nodeEl = el && el.closest ? el.closest(".node") : null;
    if (nodeEl && N.link[+nodeEl.dataset.id]) { goToLink(N.link[+nodeEl.dataset.id]); return; }
    var rect = stage.getBoundingClientRect();
    zoomAt(2, ev.clientX - rect.left, ev.clientY - rect.top);
  });

  function click(ev) {
    var el = document.elementFromPoint(ev.clientX, ev.clientY);
    if (el === minimap) return;
    var nodeEl = el && el.closest ? el.closest(".node") : null;
    if (nodeEl) { select(+nodeEl.dataset.id); return; }
    var groupEl = el && el.closest ? el.closest(".group") : null;
    if (groupEl) {
      var g = +groupEl.dataset.g;
      if (el.classList.contains("head")) toggle(g);
      else selectGroup(g);
      return;
    }
    if (state.far) {
      var rect = stage.getBoundingClientRect();
      var lx = (ev.clientX - rect.left - state.tx) / state.scale, ly = (ev.clientY - rect.top - state.ty) / state.scale;
      var n = nodeAt(lx, ly);
      if (n >= 0) { goToNode(n); return; }
    }
    clearSelection();
  }

  function nodeAt(x, y) {
    var b = state.placed.nodes, best = -1, bestD = Infinity;
    for (var n = 0; n < nNodes; n++) {
      if (!state.placed.shownNodes[n]) continue;
      var cx = b[4 * n] + b[4 * n + 2] / 2, cy = b[4 * n + 1] + b[4 * n + 3] / 2;
      var d = Math.abs(cx - x) / Math.max(b[4 * n + 2], 1) + Math.abs(cy - y) / Math.max(b[4 * n + 3], 1);
      if (d < bestD) { bestD = d; best = n; }
    }
    return bestD < 4 / state.scale / 40 + 2 ? best : -1;
  }

  function toggle(g) {
    if (state.collapsed.has(g)) state.collapsed.delete(g); else state.collapsed.add(g);
    relayout(g);
  }

  var miniDrag = false;
  function minimapMove(ev) {
    var rect = minimap.getBoundingClientRect();
    var lx = (ev.clientX - rect.left - minimapOff[0]) / minimapScale, ly = (ev.clientY - rect.top - minimapOff[1]) / minimapScale;
    var s = stageSize();
    state.tx = s[0] / 2 - lx * state.scale;
    state.ty = s[1] / 2 - ly * state.scale;
    updateView();
  }
  minimap.addEventListener("pointerdown", function (ev) { ev.stopPropagation(); miniDrag = true; minimap.setPointerCapture(ev.pointerId); minimapMove(ev); });
  minimap.addEventListener("pointermove", function (ev) { if (miniDrag) minimapMove(ev); });
  minimap.addEventListener("pointerup", function (ev) { ev.stopPropagation(); miniDrag = false; });
  minimap.addEventListener("wheel", function (ev) { ev.stopPropagation(); }, { passive: true });

  // ---------------------------------------------------------------------
  // Selection and details

  function refLabel(ref) {
    if (ref < 0) { var g = ~ref; return GR.label[g] + " (" + data.groupKinds[GR.kind[g]] + ")"; }
    return (N.name[ref] ? N.name[ref] + " = " : "") + N.label[ref];
  }

  function refLink(ref) {
    return '<a data-ref="' + ref + '">' + esc(clip(refLabel(ref), 60)) + "</a>";
  }

  function sourceHtml(where) {
    if (!where) return "";
    var line = data.lines[String(where[0])];
    var html = "<h3>Source</h3><div class=\"mono loc\">" + esc((data.file || "") + ":" + where[0] + ":" + where[1]) + "</div>";
    if (line !== undefined) {
      var start = where[1] - 1, end = where[2] === where[0] ? where[3] - 1 : line.length;
      html += '<pre class="line">' + esc(line.slice(0, start)) + "<mark>" + esc(line.slice(start, end)) + "</mark>" + esc(line.slice(end)) + "</pre>";
    }
    return html;
  }

  function row(name, value, cls) {
    return value === "" || value === null || value === undefined ? "" : "<tr><td>" + name + '</td><td class="mono ' + (cls || "") + '">' + esc(value) + "</td></tr>";
  }

  function select(n) {
    state.selected = n;
    state.selectedGroup = -1;
    var kind = data.nodeKinds[N.kind[n]];
    var html = "<h2>" + esc(N.label[n]) + "</h2><div class=\"sub\">" + esc((N.name[n] ? N.name[n] + " \u00b7 " : "") + kindText(kind)) + "</div><table class=\"props\">" +
      row("operator", N.op[n], "op") + row("name", N.name[n], "name") + row("type", S[N.type[n]], "type") + row("shape", S[N.shape[n]], "shape") +
      row("dtype", S[N.dtype[n]], "dtype") + row("MACs", N.macs[n] ? thousands(N.macs[n]) : "", "macs") + "</table>";
    var attrs = N.attrs[n];
    if (attrs && attrs.length) {
      html += '<h3>Attributes</h3><table class="attrs">';
      attrs.forEach(function (kv) { html += "<tr><td class=\"mono\">" + esc(kv[0]) + '</td><td class="mono">' + esc(kv[1]) + "</td></tr>"; });
      html += "</table>";
    }
    if (N.link[n]) html += '<h3>Calls</h3><a class="golink" data-link="' + esc(N.link[n]) + '">' + esc(N.link[n].indexOf("group:") === 0 ? GR.label[+N.link[n].slice(6)] : N.link[n]) + "</a>" + (hasFunction(N.link[n]) ? "" : " <span class=\"sub\">(not in this file)</span>");
    html += sourceHtml(N.where[n]);
    html += edgesHtml(n);
    showDetails(html);
    marksChanged();
  }

  function hasFunction(link) {
    if (link.indexOf("group:") === 0) return true;
    for (var g = 0; g < nGroups; g++) if (GR.parent[g] < 0 && GR.name[g] === link) return true;
    return false;
  }

  function kindText(kind) {
    return {
      op: "operator call", call: "function call", constructor: "constructor", tuple: "tuple", project: "tuple field",
      param: "parameter", "const": "constant", pattern: "pattern variable", global: "global function", ref: "reference"
    }[kind] || kind;
  }

  function edgesHtml(ref) {
    var html = "", ins = inputsOf.get(ref) || [], outs = usersOf.get(ref) || [];
    if (ins.length) {
      html += "<h3>Inputs</h3><ul class=\"inputs\">";
      ins.forEach(function (e) { html += "<li>" + (data.roles[E.role[e]] === "arg" ? "" : esc(data.roles[E.role[e]]) + ": ") + refLink(E.src[e]) + "</li>"; });
      html += "</ul>";
    }
    if (outs.length) {
      html += "<h3>Used by</h3><ul class=\"users\">";
      outs.forEach(function (e) { html += "<li>" + refLink(E.dst[e]) + "</li>"; });
      html += "</ul>";
    }
    return html;
  }

  function selectGroup(g) {
    state.selected = -1;
    state.selectedGroup = g;
    var kind = data.groupKinds[GR.kind[g]];
    var html = "<h2>" + esc(GR.label[g]) + "</h2><div class=\"sub\">" + esc(kind === "function" ? "function" : kind + " group") + "</div><table class=\"props\">" +
      row("type", S[GR.type[g]], "type") + "</table>";
    html += '<p><a class="toggle" data-toggle="' + g + '">' + (state.collapsed.has(g) ? "expand" : "collapse") + "</a></p>";
    html += sourceHtml(GR.where[g]);
    html += edgesHtml(~g);
    showDetails(html);
    marksChanged();
  }

  function showDetails(html) {
    info.innerHTML = html;
    details.hidden = false;
    document.body.classList.add("with-details");
  }

  function clearSelection() {
    state.selected = -1;
    state.selectedGroup = -1;
    details.hidden = true;
    document.body.classList.remove("with-details");
    marksChanged();
  }

  info.addEventListener("click", function (ev) {
    var a = ev.target.closest("a");
    if (!a) return;
    if (a.dataset.ref !== undefined) {
      var ref = +a.dataset.ref;
      if (ref >= 0) goToNode(ref); else goToGroup(~ref);
    } else if (a.dataset.link) {
      goToLink(a.dataset.link);
    } else if (a.dataset.toggle !== undefined) {
      var g = +a.dataset.toggle;
      toggle(g);
      selectGroup(g);
    }
  });
  document.getElementById("close").addEventListener("click", clearSelection);

  // ---------------------------------------------------------------------
  // Search

  function search(query) {
    var q = query.trim().toLowerCase(), hits = [];
    if (q) {
      for (var n = 0; n < nNodes; n++) {
        if (N.label[n].toLowerCase().indexOf(q) >= 0 || N.name[n].toLowerCase().indexOf(q) >= 0 || N.op[n].toLowerCase().indexOf(q) >= 0) hits.push(n);
      }
      // an exact name first: `%12` finds %12 before %120
      hits.sort(function (a, b) {
        var ea = N.name[a].toLowerCase() === q || N.label[a].toLowerCase() === q ? 0 : 1;
        var eb = N.name[b].toLowerCase() === q || N.label[b].toLowerCase() === q ? 0 : 1;
        return ea - eb || a - b;
      });
    }
    state.hits = hits;
    state.hit = -1;
    state.hitSet = new Set(hits);
    hitsLabel.textContent = q ? (hits.length ? hits.length + (hits.length === 1 ? " match" : " matches") : "no match") : "";
    var parts = [];
    for (var i = 0; i < hits.length && i < 200; i++) {
      var m = hits[i];
      parts.push('<li data-id="' + m + '">' + esc(refLabel(m)) + ' <span style="color:#7d8b99">' + esc(S[N.caption[m]]) + "</span></li>");
    }
    results.innerHTML = parts.join("");
    results.hidden = parts.length === 0;
    marksChanged();
    return hits;
  }

  function nextHit(step) {
    if (!state.hits.length) return -1;
    state.hit = (state.hit + step + state.hits.length) % state.hits.length;
    var n = state.hits[state.hit];
    hitsLabel.textContent = (state.hit + 1) + " of " + state.hits.length;
    goToNode(n);
    return n;
  }

  searchInput.addEventListener("input", function () { search(searchInput.value); });
  searchInput.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter") { ev.preventDefault(); results.hidden = true; nextHit(ev.shiftKey ? -1 : 1); }
    else if (ev.key === "Escape") { searchInput.value = ""; search(""); searchInput.blur(); }
  });
  results.addEventListener("click", function (ev) {
    var li = ev.target.closest("li");
    if (!li) return;
    results.hidden = true;
    var n = +li.dataset.id;
    state.hit = state.hits.indexOf(n);
    goToNode(n);
  });

  // ---------------------------------------------------------------------
  // Toolbar and keys

  var functions = document.getElementById("functions");
  (function () {
    var parts = [];
    for (var g = 0; g < nGroups; g++) if (GR.parent[g] < 0) parts.push('<option value="' + g + '">' + esc(GR.label[g]) + "</option>");
    functions.innerHTML = parts.join("");
    functions.hidden = parts.length < 2;
  })();
  functions.addEventListener("change", function () { goToGroup(+functions.value); });
  var fileLabel = document.getElementById("file");
  fileLabel.textContent = (data.file || "").split(/[\\/]/).pop();
  fileLabel.title = data.file || "";
  document.getElementById("fit").addEventListener("click", fit);
  document.getElementById("zoomin").addEventListener("click", function () { var s = stageSize(); zoomAt(1.25, s[0] / 2, s[1] / 2); });
  document.getElementById("zoomout").addEventListener("click", function () { var s = stageSize(); zoomAt(0.8, s[0] / 2, s[1] / 2); });
  document.getElementById("collapse").addEventListener("click", function () {
    for (var g = 0; g < nGroups; g++) if (GR.parent[g] >= 0) state.collapsed.add(g);
    relayout(); fit();
  });
  document.getElementById("expand").addEventListener("click", function () { state.collapsed.clear(); relayout(); fit(); });
  var edgesButton = document.getElementById("edges");
  function edgesLabel() { edgesButton.textContent = state.orthogonal ? "Edges: right angles" : "Edges: straight"; }
  edgesButton.addEventListener("click", function () { state.orthogonal = !state.orthogonal; edgesLabel(); relayout(); });
  edgesLabel();

  document.addEventListener("keydown", function (ev) {
    if (ev.target === searchInput || ev.target === functions) return;
    var s = stageSize();
    if (ev.key === "/") { ev.preventDefault(); searchInput.focus(); searchInput.select(); }
    else if (ev.key === "f" || ev.key === "F") fit();
    else if (ev.key === "+" || ev.key === "=") zoomAt(1.25, s[0] / 2, s[1] / 2);
    else if (ev.key === "-") zoomAt(0.8, s[0] / 2, s[1] / 2);
    else if (ev.key === "Escape") clearSelection();
  });
  window.addEventListener("resize", function () { minimapImage = null; updateView(); });

  // ---------------------------------------------------------------------
  // Start

  if (nGroups === 0) document.getElementById("empty").hidden = false;
  state.placed = place(state.collapsed, state.orthogonal);
  timings.placed = performance.now();
  build();
  timings.built = performance.now();
  var entry = data.entry >= 0 ? data.entry : (nGroups ? 0 : -1);
  // The first view needs the stage's size: a page shown in a hidden frame
  // (a folded notebook output) has none until it is shown.
  if (entry >= 0) functions.value = String(entry);
  var firstView = function () { if (entry >= 0) showGroup(entry); else updateView(); };
  function sized() { return stage.clientWidth > 0 && stage.clientHeight > 0; }
  if (sized()) firstView();
  else {
    updateView();
    if (window.ResizeObserver) {
      var watch = new ResizeObserver(function () {
        if (!sized()) return;
        watch.disconnect();
        firstView();
      });
      watch.observe(stage);
    }
  }

  // For tests and scripts: read-only views of the state, and the actions.
  window.relayViz = {
    nodeCount: nNodes,
    timings: timings,
    groupCount: nGroups,
    renderedNodes: function () { return layerNodes.querySelectorAll(".node").length; },
    placed: function () {  // as JSON text: one string crosses to a test driver much faster than nested arrays
      var p = state.placed;
      return JSON.stringify({ nodes: Array.from(p.nodes), groups: Array.from(p.groups), shownNodes: Array.from(p.shownNodes), routes: p.routes, width: p.width, height: p.height });
    },
    find: function (name) {  // the first node of that name (`%2`), else of that label (`nn.conv2d`); -1: none
      for (var n = 0; n < nNodes; n++) if (N.name[n] === name) return n;
      for (n = 0; n < nNodes; n++) if (N.label[n] === name) return n;
      return -1;
    },
    select: select, search: search, next: nextHit, goToNode: goToNode, goToGroup: goToGroup, toggle: toggle, fit: fit,
    view: function () { return { scale: state.scale, tx: state.tx, ty: state.ty, far: state.far }; },
    setView: function (scale, tx, ty) { state.scale = scale; state.tx = tx; state.ty = ty; render(); }
  };
})();
