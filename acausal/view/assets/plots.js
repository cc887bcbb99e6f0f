// Plots under the 3-D view: one canvas per plot, curves of the solution's variables over time,
// a cursor at the shown time with each curve's value. The curves are drawn once per size into
// an off-screen canvas; moving the cursor only copies that image and draws the cursor.
"use strict";

function acausalPlots(container, plots, arrays, t) {
  const n = t.length, t0 = t[0], t1 = t[n - 1] > t[0] ? t[n - 1] : t[0] + 1;
  const COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"];
  const views = plots.map((plot) => {
    const canvas = document.createElement("canvas");
    container.appendChild(canvas);
    let low = Infinity, high = -Infinity;
    const curves = plot.curves.map((c) => {
      const y = arrays[c.array];
      for (let i = 0; i < n; i++) {
        if (y[i] < low) low = y[i];
        if (y[i] > high) high = y[i];
      }
      return { name: c.name, unit: c.unit, y: y };
    });
    if (!(high > low)) { low -= 1; high += 1; }
    const pad = 0.05 * (high - low);
    return { canvas: canvas, curves: curves, low: low - pad, high: high + pad, image: null };
  });
  let cursor = 0;
  const LEFT = 64, RIGHT = 12, TOP = 8, BOTTOM = 20;

  function frame(view) {
    const ratio = window.devicePixelRatio || 1;
    const width = view.canvas.clientWidth, height = view.canvas.clientHeight;
    return { ratio: ratio, width: width, height: height,
             x: (time) => LEFT + (time - t0) / (t1 - t0) * (width - LEFT - RIGHT),
             y: (v) => TOP + (view.high - v) / (view.high - view.low) * (height - TOP - BOTTOM) };
  }

  function drawStatic(view) {
    const f = frame(view);
    const image = document.createElement("canvas");
    image.width = Math.max(1, Math.round(f.width * f.ratio));
    image.height = Math.max(1, Math.round(f.height * f.ratio));
    const g = image.getContext("2d");
    g.scale(f.ratio, f.ratio);
    g.fillStyle = "#fff";
    g.fillRect(0, 0, f.width, f.height);
    g.strokeStyle = "#ccc";
    g.strokeRect(LEFT, TOP, f.width - LEFT - RIGHT, f.height - TOP - BOTTOM);
    g.fillStyle = "#555";
    g.font = "11px system-ui, sans-serif";
    g.textAlign = "right";
    for (const v of [view.high, (view.high + view.low) / 2, view.low]) {
      const zero = Math.abs(v) < 1e-9 * (view.high - view.low);  // not 1.9e-8 for 0
      g.fillText(zero ? "0" : Number(v.toPrecision(3)).toString(), LEFT - 4, f.y(v) + 4);
    }
    g.textAlign = "center";
    g.fillText(t0.toPrecision(3) + " s", f.x(t0) + 10, f.height - 5);
    g.fillText(t1.toPrecision(3) + " s", f.x(t1) - 14, f.height - 5);
    // at most ~2 points per pixel column: enough for the eye, fast for 10^5 points
    const step = Math.max(1, Math.floor(n / (2 * Math.max(f.width, 1))));
    view.curves.forEach((c, j) => {
      g.strokeStyle = COLORS[j % COLORS.length];
      g.lineWidth = 1.3;
      g.beginPath();
      for (let i = 0; i < n; i += step) {
        if (i === 0) g.moveTo(f.x(t[i]), f.y(c.y[i])); else g.lineTo(f.x(t[i]), f.y(c.y[i]));
      }
      g.lineTo(f.x(t[n - 1]), f.y(c.y[n - 1]));
      g.stroke();
    });
    view.image = image;
  }

  function drawCursor(view) {
    const f = frame(view);
    const canvas = view.canvas;
    canvas.width = view.image.width;
    canvas.height = view.image.height;
    const g = canvas.getContext("2d");
    g.drawImage(view.image, 0, 0);
    g.scale(f.ratio, f.ratio);
    const x = f.x(t[cursor]);
    g.strokeStyle = "#333";
    g.lineWidth = 1;
    g.beginPath();
    g.moveTo(x, TOP);
    g.lineTo(x, f.height - BOTTOM);
    g.stroke();
    g.font = "11px system-ui, sans-serif";
    g.textAlign = "left";
    view.curves.forEach((c, j) => {
      g.fillStyle = COLORS[j % COLORS.length];
      g.beginPath();
      g.arc(x, f.y(c.y[cursor]), 3, 0, 2 * Math.PI);
      g.fill();
      const unit = c.unit ? " " + c.unit : "";
      g.fillText(c.name + " = " + Number(c.y[cursor].toPrecision(5)) + unit, LEFT + 6,
                 TOP + 13 * (j + 1));
    });
  }

  return {
    resize: () => views.forEach((view) => { drawStatic(view); drawCursor(view); }),
    setCursor: (k) => { cursor = k; views.forEach((view) => { if (view.image) drawCursor(view); }); },
  };
}
