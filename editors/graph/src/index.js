// The Relavium workflow graph renderer: one IIFE bundle (global `RelaviumGraph`) for the
// `relavium-lsp graph --format html` page and the VS Code webview. Layout is dagre's (layered,
// compound nodes for parallel groups); this file only draws what dagre placed, as SVG, and pans
// and zooms it. Styling uses SVG attributes and CSSOM properties only, never a <style> element
// or a style attribute in markup, so a strict content security policy needs no exception.
import dagre from "@dagrejs/dagre";

const SVG = "http://www.w3.org/2000/svg";
const VERSION = 1; // the graph JSON version this renderer reads
const CHAR_WIDTH = 7; // an estimate: measuring 500 labels in the DOM costs more than the layout
const LABEL_LIMIT = 40;
// dagre's compound layout (a parallel group as a box the layout keeps clear) costs ten times
// the plain one at 500 nodes (seconds); above this size a group's box is drawn around where
// the plain layout placed its members (dagre keeps a parallel's members side by side)
const COMPOUND_LIMIT = 150;

const TYPE_STYLE = {
  input: { fill: "#dbeafe", stroke: "#3b82f6", shape: "stadium" },
  agent: { fill: "#ede9fe", stroke: "#7c3aed", shape: "rect" },
  condition: { fill: "#ffedd5", stroke: "#ea580c", shape: "diamond" },
  transform: { fill: "#dcfce7", stroke: "#16a34a", shape: "round" },
  merge: { fill: "#fce7f3", stroke: "#db2777", shape: "round" },
  parallel: { fill: "#cffafe", stroke: "#0891b2", shape: "rect" },
  human_gate: { fill: "#fef9c3", stroke: "#ca8a04", shape: "hexagon" },
  output: { fill: "#e2e8f0", stroke: "#475569", shape: "stadium" },
};
const UNKNOWN_STYLE = { fill: "#f1f5f9", stroke: "#94a3b8", shape: "rect" };
const STATUS_COLOUR = {
  ran: "#16a34a",
  pinned: "#2563eb",
  synthesized: "#9333ea",
  skipped: "#9ca3af",
  failed: "#dc2626",
  "not-run": "#6b7280",
};
const GATE_TINTS = ["#f59e0b", "#10b981", "#6366f1", "#ec4899", "#14b8a6", "#8b5cf6"];
const LEAK = "#dc2626";
const EDGE = "#64748b";

function el(name, attributes, parent) {
  const node = document.createElementNS(SVG, name);
  for (const key in attributes) node.setAttribute(key, String(attributes[key]));
  if (parent) parent.appendChild(node);
  return node;
}

function clip(text, limit) {
  return text.length <= limit ? text : text.slice(0, limit - 1) + "…";
}

function check(graph) {
  if (!graph || typeof graph !== "object" || !Array.isArray(graph.nodes)) {
    throw new Error("RelaviumGraph: expected the graph JSON (an object with `nodes`)");
  }
  if (graph.version !== VERSION) {
    throw new Error(`RelaviumGraph: graph JSON version ${graph.version}, this renderer reads ${VERSION}`);
  }
}

// dagre's layout of the graph JSON: node boxes, edge points, group boxes
function layout(graph) {
  const compound = graph.nodes.length <= COMPOUND_LIMIT;
  const g = new dagre.graphlib.Graph({ compound, multigraph: true });
  g.setGraph({ rankdir: "TB", nodesep: 30, ranksep: 45, edgesep: 12, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  const known = new Set();
  for (const node of graph.nodes) {
    const label = clip(node.label || node.id, LABEL_LIMIT);
    const shape = (TYPE_STYLE[node.type] || UNKNOWN_STYLE).shape;
    const width = Math.max(70, label.length * CHAR_WIDTH + 28) + (shape === "diamond" ? 40 : 0);
    const height = shape === "diamond" ? 54 : 40;
    g.setNode(node.id, { width, height, label });
    known.add(node.id);
  }
  const grouped = new Set();
  const boxes = [];
  (graph.groups || []).forEach((group) => {
    const members = group.members.filter((id) => known.has(id) && !grouped.has(id));
    if (!members.length) return;
    members.forEach((member) => grouped.add(member));
    const id = `\u0000group${boxes.length}`;
    boxes.push({ id, label: group.parallel, members });
    if (!compound) return;
    g.setNode(id, { label: group.parallel });
    for (const member of members) g.setParent(member, id);
  });
  graph.edges.forEach((edge, index) => {
    if (!known.has(edge.source) || !known.has(edge.target)) return;
    const label = clip(edge.label || "", 30);
    g.setEdge(edge.source, edge.target, {
      width: label ? label.length * 6 + 6 : 0,
      height: label ? 14 : 0,
      labelpos: "c",
      minlen: 1,
      weight: edge.kind === "data" ? 1 : 2,
    }, String(index));
  });
  dagre.layout(g);
  return { g, groups: boxes.map((box) => (compound ? { ...g.node(box.id), label: box.label }
    : around(box.members.map((member) => g.node(member)), box.label))) };
}

function around(members, label) {
  const left = Math.min(...members.map((m) => m.x - m.width / 2)) - 10;
  const right = Math.max(...members.map((m) => m.x + m.width / 2)) + 10;
  const top = Math.min(...members.map((m) => m.y - m.height / 2)) - 22;
  const bottom = Math.max(...members.map((m) => m.y + m.height / 2)) + 10;
  return { x: (left + right) / 2, y: (top + bottom) / 2, width: right - left, height: bottom - top,
    label };
}

function shapeOf(parent, shape, w, h, style) {
  const common = { fill: style.fill, stroke: style.stroke, "stroke-width": 1.5, class: "shape" };
  const x = -w / 2, y = -h / 2;
  if (shape === "diamond") {
    return el("polygon", { ...common, points: `0,${y} ${-x},0 0,${-y} ${x},0` }, parent);
  }
  if (shape === "hexagon") {
    const k = 12;
    return el("polygon", {
      ...common,
      points: `${x + k},${y} ${-x - k},${y} ${-x},0 ${-x - k},${-y} ${x + k},${-y} ${x},0`,
    }, parent);
  }
  const radius = shape === "stadium" ? h / 2 : shape === "round" ? 10 : 3;
  return el("rect", { ...common, x, y, width: w, height: h, rx: radius, ry: radius }, parent);
}

function pathOf(points) {
  let d = `M${points[0].x},${points[0].y}`;
  if (points.length === 2) return d + `L${points[1].x},${points[1].y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const mid = { x: (points[i].x + points[i + 1].x) / 2, y: (points[i].y + points[i + 1].y) / 2 };
    d += ` Q${points[i].x},${points[i].y} ${i === points.length - 2 ? points[i + 1].x : mid.x},${
      i === points.length - 2 ? points[i + 1].y : mid.y}`;
  }
  return d;
}

function tooltipText(node, statuses, gates) {
  const lines = [`${node.id} (${node.type})`];
  if (node.label && node.label !== node.id) lines.push(node.label);
  if (node.gatedBy && node.gatedBy.length) lines.push(`gated by ${node.gatedBy.join(", ")}`);
  if (node.leaked) {
    const branches = gates.filter((gate) => gate.runsAnyway.includes(node.id)).map((g) => g.label);
    lines.push(`⚠ runs also when ${branches.join(", ") || "its branch"} is not taken (leaked-branch)`);
  }
  const status = statuses.get(node.id);
  if (status) {
    lines.push(`dry run: ${status.state}${status.reason ? ` (${status.reason})` : ""}`);
    if (status.value !== undefined) lines.push(`value: ${status.value}`);
    if (status.error !== undefined) lines.push(`error: ${status.error}`);
  }
  return lines.join("\n");
}

class View {
  constructor(container, graph, options) {
    this.container = container;
    this.options = options || {};
    this.scale = 1;
    this.tx = 0;
    this.ty = 0;
    this.highlighted = null;
    this.svg = el("svg", { width: "100%", height: "100%", class: "relavium-graph" });
    this.svg.style.display = "block";
    this.svg.style.cursor = "grab";
    this.svg.style.userSelect = "none";
    const defs = el("defs", {}, this.svg);
    for (const [id, colour] of [["arrow", EDGE], ["arrow-leak", LEAK]]) {
      const marker = el("marker", {
        id: `relavium-${id}`, viewBox: "0 0 10 10", refX: 9, refY: 5,
        markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse",
      }, defs);
      el("path", { d: "M0,0 L10,5 L0,10 z", fill: colour }, marker);
    }
    this.viewport = el("g", { class: "viewport" }, this.svg);
    this.tooltip = document.createElement("div");
    this.tooltip.className = "relavium-graph-tooltip";
    Object.assign(this.tooltip.style, {
      position: "fixed", display: "none", pointerEvents: "none", whiteSpace: "pre-wrap",
      maxWidth: "480px", font: "12px/1.4 ui-monospace, monospace", padding: "6px 8px",
      background: "#111827", color: "#f9fafb", borderRadius: "4px", zIndex: 10,
    });
    container.appendChild(this.svg);
    container.appendChild(this.tooltip);
    this._panZoom();
    this.update(graph);
  }

  update(graph) {
    check(graph);
    const started = performance.now();
    this.graph = graph;
    this.statuses = new Map(graph.nodes.filter((n) => n.status).map((n) => [n.id, n.status]));
    this.layout = layout(graph);
    this._draw();
    if (!this._placed) {
      this.fit();
      this._placed = true;
    }
    this.renderMs = performance.now() - started;
    if (this.highlighted) this.highlight(this.highlighted);
    if (this.options.onReady) this.options.onReady({ renderMs: this.renderMs });
    return this;
  }

  _draw() {
    const g = this.layout.g, graph = this.graph;
    this.viewport.replaceChildren();
    this.nodeElements = new Map();
    const groups = el("g", { class: "groups" }, this.viewport);
    const edges = el("g", { class: "edges" }, this.viewport);
    const nodes = el("g", { class: "nodes" }, this.viewport);
    for (const box of this.layout.groups) {
      const group = el("g", { class: "group", "data-parallel": box.label }, groups);
      el("rect", {
        x: box.x - box.width / 2, y: box.y - box.height / 2, width: box.width, height: box.height,
        rx: 8, fill: "#0891b2", "fill-opacity": 0.06, stroke: "#0891b2", "stroke-dasharray": "4 3",
      }, group);
      const title = el("text", {
        x: box.x - box.width / 2 + 8, y: box.y - box.height / 2 + 13,
        "font-size": 11, fill: "#0e7490", "font-family": "sans-serif",
      }, group);
      title.textContent = `parallel ${box.label}`;
    }
    for (const e of g.edges()) {
      const edge = graph.edges[Number(e.name)];
      const placed = g.edge(e);
      const colour = edge.leak ? LEAK : EDGE;
      const path = el("path", {
        d: pathOf(placed.points), fill: "none", stroke: colour,
        "stroke-width": edge.leak ? 2.5 : 1.3,
        "marker-end": `url(#relavium-${edge.leak ? "arrow-leak" : "arrow"})`,
        class: `edge edge-${edge.kind}${edge.leak ? " leak" : ""}`,
        "data-source": edge.source, "data-target": edge.target, "data-kind": edge.kind,
      }, edges);
      if (edge.kind === "data") path.setAttribute("stroke-dasharray", "5 4");
      if (edge.label) {
        const text = el("text", {
          x: placed.x, y: placed.y + 4, "text-anchor": "middle", "font-size": 10,
          "font-family": "sans-serif", fill: edge.leak ? LEAK : "#334155", class: "edge-label",
        }, edges);
        text.setAttribute("stroke", "#ffffff");
        text.setAttribute("stroke-width", 3);
        text.setAttribute("paint-order", "stroke");
        text.textContent = clip(edge.label, 30);
      }
    }
    const gateTint = new Map((graph.gates || []).map((gate, i) =>
      [gate.label, GATE_TINTS[i % GATE_TINTS.length]]));
    for (const node of graph.nodes) {
      const box = g.node(node.id);
      if (!box) continue;
      const style = TYPE_STYLE[node.type] || UNKNOWN_STYLE;
      const item = el("g", {
        class: `node type-${node.type}${node.leaked ? " leaked" : ""}`,
        transform: `translate(${box.x},${box.y})`, "data-id": node.id,
      }, nodes);
      item.style.cursor = "pointer";
      const gate = node.gatedBy && node.gatedBy.length ? node.gatedBy[node.gatedBy.length - 1] : null;
      if (gate) {
        el("rect", {
          x: -box.width / 2 - 4, y: -box.height / 2 - 4, width: box.width + 8,
          height: box.height + 8, rx: 8, fill: gateTint.get(gate) || GATE_TINTS[0],
          "fill-opacity": 0.25, class: "gate-tint", "data-gate": gate,
        }, item);
      }
      const shape = shapeOf(item, style.shape, box.width, box.height, style);
      if (node.leaked) {
        shape.setAttribute("stroke", LEAK);
        shape.setAttribute("stroke-width", 3);
      }
      const text = el("text", {
        "text-anchor": "middle", y: 4, "font-size": 12, "font-family": "sans-serif",
        fill: "#0f172a", class: "label",
      }, item);
      text.textContent = box.label;
      this.nodeElements.set(node.id, item);
      item.addEventListener("mouseenter", (event) => this._showTooltip(node, event));
      item.addEventListener("mousemove", (event) => this._moveTooltip(event));
      item.addEventListener("mouseleave", () => { this.tooltip.style.display = "none"; });
      item.addEventListener("click", (event) => {
        event.stopPropagation();
        if (this.options.onNodeClick) this.options.onNodeClick(node.id, node);
      });
    }
    this._paintStatuses();
  }

  _paintStatuses() {
    for (const [id, item] of this.nodeElements) {
      const old = item.querySelector(".status");
      if (old) old.remove();
      const status = this.statuses.get(id);
      item.removeAttribute("data-status");
      if (!status) continue;
      item.setAttribute("data-status", status.state);
      const box = this.layout.g.node(id);
      const colour = STATUS_COLOUR[status.state] || "#6b7280";
      const badge = el("circle", {
        cx: box.width / 2 - 6, cy: -box.height / 2 + 6, r: 6, fill: colour,
        stroke: "#ffffff", "stroke-width": 1.5, class: "status", "data-state": status.state,
      }, item);
      badge.style.pointerEvents = "none";
      item.setAttribute("opacity", status.state === "skipped" || status.state === "not-run" ? 0.55 : 1);
    }
  }

  _showTooltip(node, event) {
    this.tooltip.textContent = tooltipText(node, this.statuses, this.graph.gates || []);
    this.tooltip.style.display = "block";
    this._moveTooltip(event);
  }

  _moveTooltip(event) {
    this.tooltip.style.left = `${event.clientX + 14}px`;
    this.tooltip.style.top = `${event.clientY + 14}px`;
  }

  setStatuses(statuses) {
    this.statuses = new Map(Object.entries(statuses || {}));
    this._paintStatuses();
    return this;
  }

  highlight(nodeId) {
    if (this.highlighted && this.nodeElements.has(this.highlighted)) {
      const ring = this.nodeElements.get(this.highlighted).querySelector(".highlight");
      if (ring) ring.remove();
    }
    this.highlighted = nodeId || null;
    const item = nodeId ? this.nodeElements.get(nodeId) : null;
    if (!item) return this;
    const box = this.layout.g.node(nodeId);
    const ring = el("rect", {
      x: -box.width / 2 - 7, y: -box.height / 2 - 7, width: box.width + 14,
      height: box.height + 14, rx: 10, fill: "none", stroke: "#0ea5e9", "stroke-width": 3,
      class: "highlight",
    });
    item.insertBefore(ring, item.firstChild);
    this._reveal(box);
    return this;
  }

  _reveal(box) {
    const rect = this.svg.getBoundingClientRect();
    const x = box.x * this.scale + this.tx, y = box.y * this.scale + this.ty;
    if (x < 0 || y < 0 || x > rect.width || y > rect.height) {
      this.tx = rect.width / 2 - box.x * this.scale;
      this.ty = rect.height / 2 - box.y * this.scale;
      this._apply();
    }
  }

  fit() {
    const size = this.layout.g.graph();
    const rect = this.svg.getBoundingClientRect();
    const width = rect.width || 800, height = rect.height || 600;
    // never smaller than a readable label: a large graph starts at its top, to be panned
    this.scale = Math.max(0.35, Math.min(1.5, width / size.width, height / size.height));
    this.tx = (width - size.width * this.scale) / 2;
    this.ty = size.height * this.scale > height ? 0 : (height - size.height * this.scale) / 2;
    if (this.tx < 0) this.tx = 0;
    this._apply();
    return this;
  }

  _apply() {
    this.viewport.setAttribute("transform", `translate(${this.tx},${this.ty}) scale(${this.scale})`);
  }

  _panZoom() {
    let drag = null;
    this.svg.addEventListener("wheel", (event) => {
      event.preventDefault();
      const rect = this.svg.getBoundingClientRect();
      const px = event.clientX - rect.left, py = event.clientY - rect.top;
      const factor = Math.exp(-event.deltaY * 0.0015);
      const scale = Math.min(4, Math.max(0.05, this.scale * factor));
      this.tx = px - (px - this.tx) * (scale / this.scale);
      this.ty = py - (py - this.ty) * (scale / this.scale);
      this.scale = scale;
      this._apply();
    }, { passive: false });
    this.svg.addEventListener("pointerdown", (event) => {
      drag = { x: event.clientX - this.tx, y: event.clientY - this.ty };
      this.svg.style.cursor = "grabbing";
    });
    window.addEventListener("pointermove", (event) => {
      if (!drag) return;
      this.tx = event.clientX - drag.x;
      this.ty = event.clientY - drag.y;
      this._apply();
    });
    window.addEventListener("pointerup", () => {
      drag = null;
      this.svg.style.cursor = "grab";
    });
  }

  destroy() {
    this.svg.remove();
    this.tooltip.remove();
  }
}

export function render(container, graph, options) {
  return new View(container, graph, options);
}

export { VERSION as graphJsonVersion };
