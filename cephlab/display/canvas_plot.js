// LivePlot's browser side (an anywidget ESM, cephlab/display/canvas_plot.py): lines on a <canvas> with
// linear or log axes, ticks, labels and a legend. The kernel sends only new y arrays (float64
// bytes) and the axis limits it fitted; this file draws them, at most once per animation frame and
// always from the latest model state, so a fast drag never queues stale frames. Nothing is
// fetched at run time.

const FONT = "12px sans-serif";
const DASHES = { "-": [], "solid": [], "--": [6, 4], "dashed": [6, 4], ":": [1.5, 3], "dotted": [1.5, 3],
                 "-.": [6, 3, 1.5, 3], "dashdot": [6, 3, 1.5, 3] };
const SUPERSCRIPT = { "-": "\u207b", "0": "\u2070", "1": "\u00b9", "2": "\u00b2", "3": "\u00b3", "4": "\u2074",
                      "5": "\u2075", "6": "\u2076", "7": "\u2077", "8": "\u2078", "9": "\u2079" };

function floats(view) {   // a DataView from the comm (any alignment) -> Float64Array
  if (!view || !view.byteLength) return new Float64Array(0);
  return new Float64Array(view.buffer.slice(view.byteOffset, view.byteOffset + view.byteLength));
}

function fmt(v) {
  if (v === 0) return "0";
  const a = Math.abs(v);
  if (a >= 1e5 || a < 1e-3) return v.toExponential(1).replace(".0e", "e").replace("e+", "e");
  return String(Number(v.toPrecision(4)));
}

function powerOfTen(e, plain) {
  if (plain) return fmt(Math.pow(10, e));
  return "10" + String(e).split("").map((c) => SUPERSCRIPT[c]).join("");
}

function linearTicks(lo, hi, target = 6) {
  const raw = (hi - lo) / target, mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = mag * ([1, 2, 2.5, 5, 10].find((m) => m * mag >= raw) || 10);
  const ticks = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) {
    ticks.push({ v: Math.abs(v) < step * 1e-9 ? 0 : v, label: fmt(Math.abs(v) < step * 1e-9 ? 0 : v) });
  }
  return { major: ticks, minor: [] };
}

function logTicks(lo, hi) {
  const e0 = Math.ceil(Math.log10(lo) - 1e-9), e1 = Math.floor(Math.log10(hi) + 1e-9);
  if (e1 - e0 >= 1) {   // at least two decades inside: label decades, every k-th when crowded
    const k = Math.ceil((e1 - e0 + 1) / 8), major = [], minor = [];
    const plain = e0 >= -2 && e1 <= 3;   // 0.01 ... 1000 as numbers, else every label as 10^e
    for (let e = e0; e <= e1; e++) {
      if ((e - e0) % k === 0) major.push({ v: Math.pow(10, e), label: powerOfTen(e, plain) });
      else minor.push({ v: Math.pow(10, e) });
    }
    if (k === 1 && e1 - e0 <= 6) {
      for (let e = e0 - 1; e <= e1; e++) {
        for (let m = 2; m <= 9; m++) {
          const v = m * Math.pow(10, e);
          if (v > lo && v < hi) minor.push({ v });
        }
      }
    }
    return { major, minor };
  }
  const major = [];   // less than two decades: 1, 2, 5 times powers of ten, else linear ticks
  for (let e = e0 - 1; e <= e1 + 1; e++) {
    for (const m of [1, 2, 5]) {
      const v = m * Math.pow(10, e);
      if (v >= lo && v <= hi) major.push({ v, label: fmt(v) });
    }
  }
  return major.length >= 3 ? { major, minor: [] } : linearTicks(lo, hi, 4);
}

function scale(lo, hi, log, p0, p1) {
  const f = log ? Math.log10 : (v) => v, a = f(lo), b = f(hi);
  return (v) => p0 + ((f(v) - a) / (b - a)) * (p1 - p0);
}

function layout(ctx, m, yTicks) {
  const tickWidth = Math.max(0, ...yTicks.major.map((t) => ctx.measureText(t.label).width));
  const left = 8 + (m.ylabel ? 18 : 0) + tickWidth + 8;
  const top = m.title ? 26 : 12, bottom = 22 + (m.xlabel ? 18 : 0);
  return { left, top, right: m.width - 14, bottom: m.height - bottom };
}

function drawAxes(ctx, m, box, X, Y, xTicks, yTicks) {
  ctx.strokeStyle = "rgba(0,0,0,0.08)";
  ctx.lineWidth = 1;
  for (const t of [...xTicks.major, ...xTicks.minor]) line(ctx, X(t.v), box.top, X(t.v), box.bottom);
  for (const t of [...yTicks.major, ...yTicks.minor]) line(ctx, box.left, Y(t.v), box.right, Y(t.v));
  ctx.strokeStyle = "#333";
  ctx.strokeRect(box.left, box.top, box.right - box.left, box.bottom - box.top);
  ctx.fillStyle = "#222";
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  for (const t of xTicks.major) {
    line(ctx, X(t.v), box.bottom, X(t.v), box.bottom + 4);
    ctx.fillText(t.label, X(t.v), box.bottom + 6);
  }
  ctx.textAlign = "right";
  ctx.textBaseline = "middle";
  for (const t of yTicks.major) {
    line(ctx, box.left - 4, Y(t.v), box.left, Y(t.v));
    ctx.fillText(t.label, box.left - 6, Y(t.v));
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  if (m.xlabel) ctx.fillText(m.xlabel, (box.left + box.right) / 2, m.height - 4);
  if (m.title) ctx.fillText(m.title, (box.left + box.right) / 2, 20);
  if (m.ylabel) {
    ctx.save();
    ctx.translate(14, (box.top + box.bottom) / 2);
    ctx.rotate(-Math.PI / 2);
    ctx.textBaseline = "middle";
    ctx.fillText(m.ylabel, 0, 0);
    ctx.restore();
  }
}

function line(ctx, x0, y0, x1, y1) {
  ctx.beginPath();
  ctx.moveTo(Math.round(x0) + 0.5, Math.round(y0) + 0.5);
  ctx.lineTo(Math.round(x1) + 0.5, Math.round(y1) + 0.5);
  ctx.stroke();
}

function drawSeries(ctx, m, box, X, Y, x, ys) {
  ctx.save();
  ctx.beginPath();
  ctx.rect(box.left, box.top, box.right - box.left, box.bottom - box.top);
  ctx.clip();
  m.series.forEach((s, i) => {
    const y = ys.subarray(i * x.length, (i + 1) * x.length);
    ctx.strokeStyle = s.color;
    ctx.lineWidth = s.width || 1.5;
    ctx.setLineDash(DASHES[s.dash] || []);
    ctx.beginPath();
    let pen = false;
    for (let j = 0; j < x.length; j++) {
      const ok = Number.isFinite(y[j]) && !(m.logy && y[j] <= 0) && !(m.logx && x[j] <= 0);
      if (!ok) { pen = false; continue; }
      const px = X(x[j]), py = Y(y[j]);
      if (pen) ctx.lineTo(px, py); else ctx.moveTo(px, py);
      pen = true;
    }
    ctx.stroke();
  });
  ctx.restore();
}

function drawLegend(ctx, m, box, X, Y, x, ys) {
  if (m.series.length < 2) return;
  const w = 34 + Math.max(...m.series.map((s) => ctx.measureText(s.label).width)), h = 18 * m.series.length + 6;
  const corners = [[box.right - w - 6, box.top + 6], [box.left + 6, box.top + 6],
                   [box.right - w - 6, box.bottom - h - 6], [box.left + 6, box.bottom - h - 6]];
  const covered = ([cx, cy]) => {   // data points under the legend: pick the emptiest corner
    let n = 0;
    for (let j = 0; j < ys.length; j++) {
      const px = X(x[j % x.length]), py = Y(ys[j]);
      if (px >= cx && px <= cx + w && py >= cy && py <= cy + h) n++;
    }
    return n;
  };
  const [cx, cy] = corners.reduce((best, c) => (covered(c) < covered(best) ? c : best));
  ctx.fillStyle = "rgba(255,255,255,0.85)";
  ctx.strokeStyle = "#ccc";
  ctx.setLineDash([]);
  ctx.fillRect(cx, cy, w, h);
  ctx.strokeRect(cx, cy, w, h);
  ctx.textAlign = "left";
  ctx.textBaseline = "middle";
  m.series.forEach((s, i) => {
    const ly = cy + 12 + 18 * i;
    ctx.strokeStyle = s.color;
    ctx.lineWidth = s.width || 1.5;
    ctx.setLineDash(DASHES[s.dash] || []);
    line(ctx, cx + 6, ly, cx + 26, ly);
    ctx.setLineDash([]);
    ctx.fillStyle = "#222";
    ctx.fillText(s.label, cx + 30, ly);
  });
}

function snapshot(model) {
  const names = ["series", "xlim", "ylim", "logx", "logy", "xlabel", "ylabel", "title", "width", "height"];
  return Object.fromEntries(names.map((n) => [n, model.get(n)]));
}

function draw(canvas, model) {
  const m = snapshot(model), dpr = window.devicePixelRatio || 1;
  const x = floats(model.get("x")), ys = floats(model.get("ys"));
  if (canvas.width !== Math.round(m.width * dpr)) canvas.width = Math.round(m.width * dpr);
  if (canvas.height !== Math.round(m.height * dpr)) canvas.height = Math.round(m.height * dpr);
  canvas.style.width = `${m.width}px`;
  canvas.style.height = `${m.height}px`;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = "#fff";
  ctx.fillRect(0, 0, m.width, m.height);
  ctx.font = FONT;
  const yTicks = m.logy ? logTicks(...m.ylim) : linearTicks(...m.ylim);
  const xTicks = m.logx ? logTicks(...m.xlim) : linearTicks(...m.xlim);
  const box = layout(ctx, m, yTicks);
  const X = scale(...m.xlim, m.logx, box.left, box.right), Y = scale(...m.ylim, m.logy, box.bottom, box.top);
  drawAxes(ctx, m, box, X, Y, xTicks, yTicks);
  drawSeries(ctx, m, box, X, Y, x, ys);
  drawLegend(ctx, m, box, X, Y, x, ys);
  canvas.dataset.params = model.get("params");   // what the lines show: tests compare it with the slider
  canvas.dataset.draws = String(Number(canvas.dataset.draws || 0) + 1);
}

function render({ model, el }) {
  const canvas = document.createElement("canvas");
  canvas.className = "cephlab-canvas";
  el.appendChild(canvas);
  // One comm message sets several traits and fires a change event for each: a microtask turns
  // them into one draw. The first draw in a frame happens at once (its pixels show at this frame's
  // paint); later ones wait for the next animation frame, which draws the latest state once.
  let pending = false, queued = false, drewThisFrame = false;
  const schedule = () => {
    if (pending) return;
    pending = true;
    queueMicrotask(() => { pending = false; drawSoon(); });
  };
  const drawSoon = () => {
    if (!drewThisFrame) {
      drewThisFrame = true;
      draw(canvas, model);
      requestAnimationFrame(() => { drewThisFrame = false; });
      return;
    }
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; draw(canvas, model); });
  };
  const traits = ["x", "ys", "series", "xlim", "ylim", "logx", "logy", "xlabel", "ylabel", "title",
                  "width", "height", "params"];
  for (const t of traits) model.on(`change:${t}`, schedule);
  draw(canvas, model);
  return () => { for (const t of traits) model.off(`change:${t}`, schedule); };
}

export default { render };
