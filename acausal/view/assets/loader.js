// Starts the viewer: inflates the embedded three.js modules and the scene's arrays, then calls
// acausalStart (viewer.js). Everything is in this file; nothing is fetched from a network.
(function () {
  "use strict";
  function bytesOf(base64) {
    const text = atob(base64.trim());
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
    return out;
  }
  async function inflate(base64) {
    const stream = new Blob([bytesOf(base64)]).stream()
      .pipeThrough(new DecompressionStream("gzip"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  function moduleUrl(source) {
    return URL.createObjectURL(new Blob([source], { type: "text/javascript" }));
  }
  function unshuffle(bytes, offset, size, count) {  // byte b of element i at b * count + i
    const out = new Uint8Array(count * size);
    for (let b = 0; b < size; b++) {
      const base = offset + b * count;
      for (let i = 0; i < count; i++) out[i * size + b] = bytes[base + i];
    }
    return out.buffer;
  }
  // One array of the payload (acausal/view/page.py encode_arrays; ``decoded`` there is the
  // same in Python): raw floats, or each signal's first two values and second differences of
  // integers of a power-of-two quantum (exact in doubles: every integer is below 2^53).
  function decode(bytes, entry) {
    const total = entry.shape.reduce((a, b) => a * b, 1);
    if (entry.encoding === "raw") {
      const size = entry.dtype === "f8" ? 8 : 4;
      const buffer = unshuffle(bytes, entry.offset, size, total);
      return size === 8 ? new Float64Array(buffer) : new Float32Array(buffer);
    }
    const m = entry.series, n = entry.count, q = entry.quantum;
    const heads = new Float64Array(bytes.slice(entry.offset, entry.offset + 16 * m).buffer);
    const d2 = new Int32Array(unshuffle(bytes, entry.offset + 16 * m, 4, m * (n - 2)));
    const out = new Float64Array(total);  // time first: out[i * m + j] is signal j at point i
    for (let j = 0; j < m; j++) {
      let before = heads[2 * j], last = heads[2 * j + 1];
      out[j] = before * q;
      out[m + j] = last * q;
      for (let i = 2; i < n; i++) {
        const next = 2 * last - before + d2[j * (n - 2) + i - 2];
        out[i * m + j] = next * q;
        before = last;
        last = next;
      }
    }
    return out;
  }
  async function start() {
    const data = JSON.parse(document.getElementById("acausal-data").textContent);
    const libs = JSON.parse(document.getElementById("acausal-libs").textContent);
    const decoder = new TextDecoder();
    const text = async (key) => decoder.decode(await inflate(libs[key]));
    // the vendored modules import './three.core.js' and 'three': point them at the blob URLs
    const core = moduleUrl(await text("core"));
    const three = moduleUrl((await text("module")).split("'./three.core.js'").join(JSON.stringify(core)));
    const orbit = moduleUrl((await text("orbit")).split("'three'").join(JSON.stringify(three)));
    const THREE = await import(three);
    const { OrbitControls } = await import(orbit);
    const raw = await inflate(document.getElementById("acausal-arrays").textContent);
    const arrays = {};
    for (const [name, entry] of Object.entries(data.manifest)) arrays[name] = decode(raw, entry);
    acausalStart(THREE, OrbitControls, data.meta, arrays);
  }
  start().catch(function (error) {
    document.getElementById("status").textContent = "The viewer failed to start: " + error;
    console.error(error);
  });
})();
