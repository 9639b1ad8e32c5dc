/* relay viz: placing the boxes of a graph, the steps of relay_text/viz/coords.py
 * in the same arithmetic and the same order, so that both give the same
 * numbers (tests/viz/test_browser.py holds them equal). Given the page's
 * data (nodes, groups, and per group its layers from relay_text/viz/layout.py),
 * `relayPlacement(data)` returns `place(collapsed, orthogonal)`: boxes of
 * nodes and groups, edge routes, the size of the whole.
 */
function relayPlacement(data) {
  "use strict";

  var L = data.layout;
  var N = data.nodes, GR = data.groups, BL = data.blocks;
  var nNodes = N.kind.length, nGroups = GR.kind.length;
  var NODE = 0, GROUP = 1, IN = 3, OUT = 4;

  var neighbourCache = [];

  function neighbours(bi) {
    if (neighbourCache[bi]) return neighbourCache[bi];
    var block = BL[bi], kinds = block.kinds, n = kinds.length;
    var preds = [], succs = [], i, k;
    for (i = 0; i < n; i++) { preds.push([]); succs.push([]); }
    var linked = new Set();
    for (k = 0; k < block.paths.length; k++) {
      var path = block.paths[k];
      for (i = 3; i < path.length - 1; i++) {
        var a = path[i], b = path[i + 1], key = a * 4294967296 + b;
        if (!linked.has(key)) {
          linked.add(key);
          preds[b].push(a);
          succs[a].push(b);
        }
      }
    }
    for (var v = 0; v < n; v++) {
      var near = preds[v];
      if (near.length > 1) {
        var main = [];
        for (i = 0; i < near.length; i++) {
          var u = near[i];
          if (!(kinds[u] === NODE && preds[u].length === 0 && succs[u].length === 1)) main.push(u);
        }
        if (main.length) preds[v] = main;
      }
    }
    var attached = new Uint8Array(n);
    for (v = 0; v < n; v++) attached[v] = kinds[v] === NODE && preds[v].length === 0 && succs[v].length === 1 ? 1 : 0;
    neighbourCache[bi] = { preds: preds, succs: succs, attached: attached };
    return neighbourCache[bi];
  }

  function pava(desired, weights, offsets) {
    var n = desired.length, means = [], sums = [], counts = [], i, k;
    for (i = 0; i < n; i++) {
      var w = weights[i], mean = desired[i] - offsets[i], total = w, count = 1;
      while (means.length && means[means.length - 1] > mean) {
        var pw = sums[sums.length - 1];
        mean = (means[means.length - 1] * pw + mean * total) / (pw + total);
        total = pw + total;
        count += counts[counts.length - 1];
        means.pop(); sums.pop(); counts.pop();
      }
      means.push(mean); sums.push(total); counts.push(count);
    }
    var out = new Array(n);
    i = 0;
    for (k = 0; k < means.length; k++) {
      for (var c = 0; c < counts[k]; c++) { out[i] = means[k] + offsets[i]; i++; }
    }
    return out;
  }

  function placeBlock(bi, widths, heights) {
    var block = BL[bi], layers = block.layers, kinds = block.kinds, n = kinds.length;
    var nb = neighbours(bi), preds = nb.preds, succs = nb.succs, attached = nb.attached;
    var x = new Array(n).fill(0), tops = [], layerH = [], offsets = [], top = 0, r, i, v;
    for (r = 0; r < layers.length; r++) {
      var layer = layers[r], h = 0;
      for (i = 0; i < layer.length; i++) if (heights[layer[i]] > h) h = heights[layer[i]];
      tops.push(top); layerH.push(h);
      top = top + h + L.RANK_GAP;
      var off = new Array(layer.length).fill(0);
      for (i = 1; i < layer.length; i++) {
        var a = layer[i - 1], b = layer[i];
        var real = (kinds[a] === NODE || kinds[a] === GROUP) && (kinds[b] === NODE || kinds[b] === GROUP);
        var gap = real ? L.NODE_GAP : L.EDGE_GAP;
        off[i] = off[i - 1] + (widths[a] + widths[b]) / 2 + gap;
      }
      offsets.push(off);
      var shift = off.length ? off[off.length - 1] / 2 : 0;
      for (i = 0; i < layer.length; i++) x[layer[i]] = off[i] - shift;
    }
    var depth = layers.length;
    for (var sweep = 0; sweep < 2 * L.COORD_SWEEPS; sweep++) {
      var down = sweep % 2 === 0, near = down ? preds : succs;
      for (var step = 0; step < depth - 1; step++) {
        r = down ? step + 1 : depth - 2 - step;
        var lay = layers[r], desired = new Array(lay.length), weights = new Array(lay.length);
        for (i = 0; i < lay.length; i++) {
          v = lay[i];
          var list = near[v];
          if (list.length) {
            var total = 0;
            for (var j = 0; j < list.length; j++) total += x[list[j]];
            desired[i] = total / list.length;
            weights[i] = attached[v] ? L.ATTACHED : list.length;
          } else {
            desired[i] = x[v];
            weights[i] = attached[v] ? L.ATTACHED : L.LONELY;
          }
        }
        var placed = pava(desired, weights, offsets[r]);
        for (i = 0; i < lay.length; i++) x[lay[i]] = placed[i];
      }
    }
    var left = Infinity, right = -Infinity;
    for (v = 0; v < n; v++) {
      if (x[v] - widths[v] / 2 < left) left = x[v] - widths[v] / 2;
      if (x[v] + widths[v] / 2 > right) right = x[v] + widths[v] / 2;
    }
    if (n === 0) { left = 0; right = 0; }
    for (v = 0; v < n; v++) x[v] = x[v] - left;
    var height = layers.length ? tops[tops.length - 1] + layerH[layerH.length - 1] : 0;
    return { x: x, tops: tops, heights: layerH, width: right - left, height: height };
  }

  function byDepth(descending) {
    var ids = [];
    for (var g = 0; g < nGroups; g++) ids.push(g);
    ids.sort(function (a, b) { return descending ? GR.depth[b] - GR.depth[a] : GR.depth[a] - GR.depth[b]; });
    return ids;
  }
  var deepestFirst = byDepth(true), outermostFirst = byDepth(false);

  function place(collapsed, orthogonal) {
    var size = new Array(nGroups), placements = new Array(nGroups).fill(null), originOff = new Array(nGroups);
    var k, g, v;
    for (k = 0; k < nGroups; k++) {
      g = deepestFirst[k];
      var tw = GR.tw[g];
      originOff[g] = [0, 0];
      if (collapsed.has(g)) { size[g] = [tw, L.HEADER]; continue; }
      var block = BL[g], n = block.kinds.length, widths = new Array(n).fill(0), heights = new Array(n).fill(0);
      for (v = 0; v < n; v++) {
        if (block.kinds[v] === NODE) { widths[v] = N.w[block.refs[v]]; heights[v] = N.h[block.refs[v]]; }
        else if (block.kinds[v] === GROUP) { widths[v] = size[block.refs[v]][0]; heights[v] = size[block.refs[v]][1]; }
      }
      var p = placements[g] = placeBlock(g, widths, heights);
      var w = Math.max(p.width + 2 * L.GROUP_PAD, tw);
      var h = L.HEADER + L.GROUP_PAD + p.height + L.GROUP_PAD;
      size[g] = [w, h];
      originOff[g] = [(w - p.width) / 2, L.HEADER + L.GROUP_PAD];
    }
    var boxes = new Float64Array(4 * nGroups), nodeBoxes = new Float64Array(4 * nNodes);
    var topLevel = [];
    for (g = 0; g < nGroups; g++) if (GR.parent[g] < 0) topLevel.push(g);
    var extent = pack(topLevel, size, boxes);
    var shownGroups = new Uint8Array(nGroups), shownNodes = new Uint8Array(nNodes);
    for (k = 0; k < nGroups; k++) {
      g = outermostFirst[k];
      var parent = GR.parent[g];
      shownGroups[g] = parent < 0 || (shownGroups[parent] && !collapsed.has(parent)) ? 1 : 0;
      var pl = placements[g];
      if (collapsed.has(g) || pl === null || !shownGroups[g]) continue;
      var bl = BL[g], gx = boxes[4 * g] + originOff[g][0], gy = boxes[4 * g + 1] + originOff[g][1];
      for (v = 0; v < bl.kinds.length; v++) {
        var cx = gx + pl.x[v], r = bl.rank[v], cy = gy + pl.tops[r] + pl.heights[r] / 2, ref = bl.refs[v];
        if (bl.kinds[v] === NODE) {
          nodeBoxes[4 * ref] = cx - N.w[ref] / 2; nodeBoxes[4 * ref + 1] = cy - N.h[ref] / 2;
          nodeBoxes[4 * ref + 2] = N.w[ref]; nodeBoxes[4 * ref + 3] = N.h[ref];
          shownNodes[ref] = shownGroups[g];
        } else if (bl.kinds[v] === GROUP) {
          boxes[4 * ref] = cx - size[ref][0] / 2; boxes[4 * ref + 1] = cy - size[ref][1] / 2;
          boxes[4 * ref + 2] = size[ref][0]; boxes[4 * ref + 3] = size[ref][1];
        }
      }
    }
    var routes = [];
    for (k = 0; k < nGroups; k++) {
      g = outermostFirst[k];
      if (collapsed.has(g) || !shownGroups[g]) continue;
      blockRoutes(g, placements, originOff, boxes, nodeBoxes, collapsed, orthogonal, routes);
    }
    return {
      nodes: nodeBoxes, groups: boxes, shownNodes: shownNodes, shownGroups: shownGroups,
      routes: routes, width: extent[0], height: extent[1], collapsed: collapsed
    };
  }

  function pack(topLevel, size, boxes) {
    var area = 0, widest = 0, i, g;
    for (i = 0; i < topLevel.length; i++) {
      g = topLevel[i];
      area += size[g][0] * size[g][1];
      if (size[g][0] > widest) widest = size[g][0];
    }
    var limit = Math.max(widest, Math.sqrt(area) * 1.5);
    var x = 0, y = 0, rowH = 0, totalW = 0;
    for (i = 0; i < topLevel.length; i++) {
      g = topLevel[i];
      var w = size[g][0], h = size[g][1];
      if (x > 0 && x + w > limit) { x = 0; y = y + rowH + L.TOP_GAP; rowH = 0; }
      boxes[4 * g] = x; boxes[4 * g + 1] = y; boxes[4 * g + 2] = w; boxes[4 * g + 3] = h;
      if (x + w > totalW) totalW = x + w;
      x = x + w + L.TOP_GAP;
      if (h > rowH) rowH = h;
    }
    return [totalW, y + rowH];
  }

  function blockRoutes(g, placements, originOff, boxes, nodeBoxes, collapsed, orthogonal, routes) {
    var block = BL[g], pl = placements[g];
    var gx = boxes[4 * g] + originOff[g][0], gy = boxes[4 * g + 1] + originOff[g][1];
    var top = boxes[4 * g + 1], bottom = boxes[4 * g + 1] + boxes[4 * g + 3];
    var kinds = block.kinds, refs = block.refs, rank = block.rank;
    for (var k = 0; k < block.paths.length; k++) {
      var path = block.paths[k], edge = path[0], port = path[1], arrow = path[2] === 1;
      var first = 3, last = path.length - 1, pts = [];
      var a = path[first], kind = kinds[a], c;
      if (kind === IN) pts.push(gx + pl.x[a], top);
      else if (kind === GROUP) {
        c = refs[a];
        var inner = placements[c];
        if (collapsed.has(c) || inner === null) pts.push(boxes[4 * c] + boxes[4 * c + 2] / 2, boxes[4 * c + 1] + boxes[4 * c + 3]);
        else pts.push(boxes[4 * c] + originOff[c][0] + inner.x[BL[c].out], boxes[4 * c + 1] + boxes[4 * c + 3]);
      } else {
        var s = 4 * refs[a];
        pts.push(nodeBoxes[s] + nodeBoxes[s + 2] / 2, nodeBoxes[s + 1] + nodeBoxes[s + 3]);
      }
      for (var i = first + 1; i < last; i++) {
        var d = path[i], r = rank[d];
        pts.push(gx + pl.x[d], gy + pl.tops[r]);
        pts.push(gx + pl.x[d], gy + pl.tops[r] + pl.heights[r]);
      }
      var b = path[last];
      kind = kinds[b];
      if (kind === OUT) { pts.push(gx + pl.x[b], bottom); arrow = false; }
      else if (kind === GROUP) {
        c = refs[b];
        if (collapsed.has(c) || port < 0) { pts.push(boxes[4 * c] + boxes[4 * c + 2] / 2, boxes[4 * c + 1]); arrow = true; }
        else pts.push(boxes[4 * c] + originOff[c][0] + placements[c].x[port], boxes[4 * c + 1]);
      } else {
        var t = 4 * refs[b];
        pts.push(nodeBoxes[t] + nodeBoxes[t + 2] / 2, nodeBoxes[t + 1]);
      }
      if (orthogonal) {
        var bottoms = [];
        for (i = first; i <= last; i++) { var rr = rank[path[i]]; bottoms.push(gy + pl.tops[rr] + pl.heights[rr]); }
        pts = orthogonalize(pts, bottoms);
      }
      routes.push([edge, pts, arrow]);
    }
  }

  function orthogonalize(pts, bottoms) {
    // pts is flat: x0, y0, x1, y1, ...; see coords._orthogonal
    var count = pts.length / 2, out = [pts[0], pts[1]];
    var runs = 1 + Math.floor((count - 2) / 2);
    for (var k = 0; k < runs; k++) {
      var i = k === 0 ? 0 : 2 + 2 * (k - 1);
      var px = pts[2 * i], py = pts[2 * i + 1], qx = pts[2 * i + 2], qy = pts[2 * i + 3];
      if (k > 0) out.push(px, py);
      if (px !== qx) {
        var mid = bottoms[k] + L.RANK_GAP / 2;
        out.push(px, mid, qx, mid);
      }
      out.push(qx, qy);
    }
    return out;
  }

  return { place: place, outermostFirst: outermostFirst };
}
