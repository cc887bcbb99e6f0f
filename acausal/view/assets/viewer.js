// The acausal 3-D viewer: shapes placed by the solution's frames, a time slider, play/pause,
// speed, trails and plots. Started by loader.js with three.js and the scene's arrays:
//   meta.frames[f]      one moving frame (its names; planar or 3-D)
//   arrays.origins      (n, frames, 3): frame origins in world coordinates [m]
//   arrays.rotations    (n, frames, 4): unit quaternions (x, y, z, w), v_world = R v_frame
//   meta.shapes[i]      a Visual (acausal/language/visuals.py): Modelica Shape semantics
// window.acausalViewer is the page's interface for scripts and tests (setSample, framePosition).
"use strict";

function acausalStart(THREE, OrbitControls, meta, arrays) {
  const n = meta.n, t = arrays.t, O = arrays.origins, Q = arrays.rotations;
  const F = meta.frames.length;
  const container = document.getElementById("view3d");
  const status = document.getElementById("status");

  // -- the size of the motion: default sizes and the camera follow from it ------------------
  const low = [Infinity, Infinity, Infinity], high = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n * F; i++) {
    for (let j = 0; j < 3; j++) {
      const v = O[3 * i + j];
      if (v < low[j]) low[j] = v;
      if (v > high[j]) high[j] = v;
    }
  }
  const extent0 = Math.max(high[0] - low[0], high[1] - low[1], high[2] - low[2]);
  const extent = extent0 > 1e-9 ? extent0 : 1.0;  // the size of the motion: camera, ground
  // The nominal length (MultiBody's world.nominalLength) that default sizes are fractions of:
  // twice the median size of the parts (the given lengths of boxes, cylinders and spheres, the
  // distance of the frames a shape spans at the start), at most the size of the motion; so a
  // 20-link chain gets joints the size of a link's, not of the whole chain's.
  const sizes = [];
  for (const s of meta.shapes) {
    if (s.frame_b !== null) {
      const a = 3 * s.frame, b = 3 * s.frame_b;
      const d = Math.hypot(O[b] - O[a], O[b + 1] - O[a + 1], O[b + 2] - O[a + 2]);
      if (d > 0) sizes.push(d);
    } else if (s.length !== null && s.length > 0 &&
               (s.kind === "box" || s.kind === "cylinder" || s.kind === "sphere")) {
      sizes.push(s.length);
    }
  }
  sizes.sort((x, y) => x - y);
  const typical = sizes.length ? 2 * sizes[Math.floor(sizes.length / 2)] : extent;
  const L = Math.min(extent, typical);
  const centre = new THREE.Vector3((low[0] + high[0]) / 2, (low[1] + high[1]) / 2,
                                   (low[2] + high[2]) / 2);

  const renderer = new THREE.WebGLRenderer({ antialias: true });
  renderer.setPixelRatio(window.devicePixelRatio || 1);
  container.appendChild(renderer.domElement);
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(0xf4f6f8);
  const camera = new THREE.PerspectiveCamera(40, 1, extent / 1000, extent * 1000);
  scene.add(camera);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x667788, 1.6));
  const sun = new THREE.DirectionalLight(0xffffff, 1.8);
  sun.position.set(1, 2, 3);
  camera.add(sun);  // the light comes from the viewer's side, whatever the orbit

  // -- shapes ---------------------------------------------------------------------------------
  const COLORS = { box: "#0080ff", cylinder: "#0080ff", sphere: "#0080ff", spring: "#3050c0",
                   arrow: "#20a040", gravity: "#20a040", line: "#404040", axes: null };
  // MultiBody's defaults as fractions of the nominal length (see acausal/language/visuals.py)
  const DEFAULT_LENGTH = { sphere: L / 9, box: L / 10, cylinder: L / 10, spring: L / 10,
                           line: L / 10, axes: L / 2, arrow: L / 4, gravity: L / 4 };
  const CENTRED = { box: true, cylinder: true, sphere: true };
  const X = new THREE.Vector3(1, 0, 0);
  const vec = (a) => new THREE.Vector3(a[0], a[1], a[2]);

  function axesOf(lengthDirection, widthDirection) {
    const ex = lengthDirection.clone();
    if (ex.lengthSq() < 1e-24) ex.set(1, 0, 0);
    ex.normalize();
    const ey = widthDirection.clone().addScaledVector(ex, -widthDirection.dot(ex));
    if (ey.lengthSq() < 1e-18) {  // parallel: any direction perpendicular to the length
      ey.set(0, 1, 0).addScaledVector(ex, -ex.y);
      if (ey.lengthSq() < 1e-18) ey.set(0, 0, 1).addScaledVector(ex, -ex.z);
    }
    ey.normalize();
    const ez = new THREE.Vector3().crossVectors(ex, ey);
    return new THREE.Quaternion().setFromRotationMatrix(new THREE.Matrix4().makeBasis(ex, ey, ez));
  }

  function material(color) {
    return new THREE.MeshStandardMaterial({ color: color, metalness: 0.1, roughness: 0.55 });
  }

  // An object whose local x axis runs along the shape, from 0 to len.
  function solid(kind, len, width, height, color, windings) {
    if (kind === "box") {
      return new THREE.Mesh(new THREE.BoxGeometry(len, width, height).translate(len / 2, 0, 0),
                            material(color));
    }
    if (kind === "cylinder") {
      const g = new THREE.CylinderGeometry(width / 2, width / 2, len, 32);
      return new THREE.Mesh(g.rotateZ(-Math.PI / 2).translate(len / 2, 0, 0), material(color));
    }
    if (kind === "sphere") {
      return new THREE.Mesh(new THREE.SphereGeometry(len / 2, 32, 16).translate(len / 2, 0, 0),
                            material(color));
    }
    if (kind === "spring") {
      const turns = windings > 0 ? windings : 5, points = [];
      const steps = Math.max(24, Math.round(24 * turns));
      for (let i = 0; i <= steps; i++) {
        const s = i / steps, a = 2 * Math.PI * turns * s;
        points.push(new THREE.Vector3(s * len, width / 2 * Math.cos(a), width / 2 * Math.sin(a)));
      }
      const tube = new THREE.TubeGeometry(new THREE.CatmullRomCurve3(points), steps * 2,
                                          Math.max(width / 16, 1e-6), 6, false);
      return new THREE.Mesh(tube, material(color));
    }
    if (kind === "arrow" || kind === "gravity") {
      const head = Math.min(len * 0.25, 3 * width);
      const group = new THREE.Group();
      const shaft = new THREE.CylinderGeometry(width / 2, width / 2, len - head, 16);
      group.add(new THREE.Mesh(shaft.rotateZ(-Math.PI / 2).translate((len - head) / 2, 0, 0),
                               material(color)));
      const cone = new THREE.ConeGeometry(width * 1.2, head, 16);
      group.add(new THREE.Mesh(cone.rotateZ(-Math.PI / 2).translate(len - head / 2, 0, 0),
                               material(color)));
      return group;
    }
    if (kind === "axes") return new THREE.AxesHelper(len);
    const line = new THREE.BufferGeometry().setFromPoints([new THREE.Vector3(0, 0, 0),
                                                           new THREE.Vector3(len, 0, 0)]);
    return new THREE.Line(line, new THREE.LineBasicMaterial({ color: color }));
  }

  // A road (the ground a wheel rolls on): a strip through r_shape along length_direction, with
  // width_direction its upward normal, as long as the motion along it plus a margin on each
  // side, ``height`` thick below the surface; across it ``width`` wide (default: the motion's
  // extent across plus the margins); in a planar model behind the plane z = 0 (so that nothing
  // in the plane hides behind it) and in front of the grid. Laid out with the road's frame
  // where it is at the start.
  function road(s) {
    const axes = axesOf(vec(s.length_direction), vec(s.width_direction));
    const q0 = new THREE.Quaternion(Q[4 * s.frame], Q[4 * s.frame + 1], Q[4 * s.frame + 2],
                                    Q[4 * s.frame + 3]).normalize();
    const inWorld = axes.clone().premultiply(q0);
    const along = X.clone().applyQuaternion(inWorld);
    const across = new THREE.Vector3(0, 0, 1).applyQuaternion(inWorld);
    const origin = vec(s.r_shape).applyQuaternion(q0)
      .add(new THREE.Vector3(O[3 * s.frame], O[3 * s.frame + 1], O[3 * s.frame + 2]));
    let lo = Infinity, hi = -Infinity, loC = Infinity, hiC = -Infinity;
    const p = new THREE.Vector3();
    for (let i = 0; i < n * F; i++) {
      p.set(O[3 * i], O[3 * i + 1], O[3 * i + 2]).sub(origin);
      const a = p.dot(along), c = p.dot(across);
      if (a < lo) lo = a;
      if (a > hi) hi = a;
      if (c < loC) loC = c;
      if (c > hiC) hiC = c;
    }
    const margin = Math.max(L, extent / 4);
    const thick = s.height === null ? L / 10 : s.height;
    let c0, c1;
    if (meta.planar) {  // just behind the plane z = 0, in front of the grid (z = -extent/100)
      c1 = -L / 200;
      c0 = s.width === null ? -0.009 * extent : c1 - s.width;
    } else if (s.width === null) {
      c0 = loC - margin;
      c1 = hiC + margin;
    } else {
      c0 = -s.width / 2;
      c1 = s.width / 2;
    }
    const len = hi - lo + 2 * margin;
    const box = new THREE.BoxGeometry(len, thick, c1 - c0)
      .translate(lo - margin + len / 2, -thick / 2, (c0 + c1) / 2);
    const mesh = new THREE.Mesh(box, material(s.color || "#8c939c"));
    mesh.quaternion.copy(axes);
    mesh.position.copy(vec(s.r_shape));
    mesh.name = "road:" + s.component;
    mesh.userData.component = s.component;
    return mesh;
  }

  const frameGroups = [];
  for (let f = 0; f < F; f++) {
    const group = new THREE.Group();
    group.name = "frame:" + meta.frames[f].names[0];
    scene.add(group);
    frameGroups.push(group);
  }
  const frameIndex = {};
  meta.frames.forEach((frame, f) => frame.names.forEach((name) => { frameIndex[name] = f; }));

  const spanning = [];  // shapes between two frames, placed at every sample
  let gravity = null;
  for (const s of meta.shapes) {
    if (s.kind === "road") {
      frameGroups[s.frame].add(road(s));
      continue;
    }
    const color = s.color || COLORS[s.kind];
    const span = s.frame_b !== null && s.kind !== "sphere" && s.kind !== "axes";
    const given = s.length !== null;
    const len = span ? 1 : (given ? s.length : DEFAULT_LENGTH[s.kind]);
    let width = s.width;
    if (width === null) width = span ? L / 40 : (given ? s.length / 20 : L / 20);
    if (s.kind === "spring" && s.width === null) width = L / 20;
    const height = s.height === null ? width : s.height;
    const object = solid(s.kind, len, width, height, color, s.extra);
    object.name = "shape:" + s.component;
    object.userData.component = s.component;
    if (s.kind === "gravity") gravity = vec(s.length_direction);
    if (span) {
      scene.add(object);
      spanning.push({ object: object, a: s.frame, b: s.frame_b, width: vec(s.width_direction) });
      continue;
    }
    const axes = axesOf(vec(s.length_direction), vec(s.width_direction));
    object.quaternion.copy(axes);
    object.position.copy(vec(s.r_shape));
    if (!given && CENTRED[s.kind]) {  // a default-sized solid is centred on r_shape
      object.position.addScaledVector(X.clone().applyQuaternion(axes), -len / 2);
    }
    frameGroups[s.frame].add(object);
  }

  // -- ground, camera -------------------------------------------------------------------------
  const up = gravity ? gravity.clone().negate().normalize() : new THREE.Vector3(0, 1, 0);
  if (meta.planar) {
    const grid = new THREE.GridHelper(2 * extent, 20, 0xb0b8c0, 0xd8dde2);
    grid.rotateX(Math.PI / 2);  // the plane z = 0
    grid.position.set(centre.x, centre.y, -extent / 100);
    scene.add(grid);
  } else if (gravity) {
    let lowest = Infinity;
    for (let i = 0; i < n * F; i++) {
      const h = O[3 * i] * up.x + O[3 * i + 1] * up.y + O[3 * i + 2] * up.z;
      if (h < lowest) lowest = h;
    }
    const grid = new THREE.GridHelper(3 * extent, 30, 0xb0b8c0, 0xd8dde2);
    grid.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), up);
    const along = centre.clone().addScaledVector(up, lowest - extent / 10 - centre.dot(up));
    grid.position.copy(along);
    scene.add(grid);
  }
  camera.up.copy(up);
  const controls = new OrbitControls(camera, renderer.domElement);
  function resetCamera() {
    let direction;
    if (meta.planar) {
      direction = new THREE.Vector3(0, 0, 1);
    } else {
      const side = Math.abs(up.z) < 0.9 ? new THREE.Vector3(0, 0, 1) : new THREE.Vector3(1, 0, 0);
      const h1 = side.addScaledVector(up, -side.dot(up)).normalize();
      const h2 = new THREE.Vector3().crossVectors(up, h1);
      direction = h1.multiplyScalar(0.85).addScaledVector(h2, 0.45).addScaledVector(up, 0.35)
        .normalize();
    }
    camera.position.copy(centre).addScaledVector(direction, 1.8 * extent);
    controls.target.copy(centre);
    controls.update();
  }
  resetCamera();

  // -- trails ---------------------------------------------------------------------------------
  const trailLines = [];
  for (const trail of meta.trails) {
    const points = arrays[trail.array];
    const geometry = new THREE.BufferGeometry();
    const xyz = new Float32Array(3 * n);
    const offset = [centre.x, centre.y, centre.z];
    for (let i = 0; i < 3 * n; i++) xyz[i] = points[i] - offset[i % 3];
    geometry.setAttribute("position", new THREE.BufferAttribute(xyz, 3));
    const line = new THREE.Line(geometry, new THREE.LineBasicMaterial({ color: 0xd05020 }));
    line.position.copy(centre);  // float32 points relative to the centre: no visible rounding
    line.frustumCulled = false;
    line.visible = false;
    scene.add(line);
    trailLines.push(line);
  }
  const trailsBox = document.getElementById("trails");
  trailsBox.disabled = trailLines.length === 0;
  trailsBox.checked = trailLines.length > 0 && meta.trails_on;
  function showTrails() {
    for (const line of trailLines) line.visible = trailsBox.checked;
    dirty = true;
  }

  // -- plots ----------------------------------------------------------------------------------
  const plots = acausalPlots(document.getElementById("plots"), meta.plots, arrays, t);

  // -- time -----------------------------------------------------------------------------------
  const slider = document.getElementById("slider");
  const timeText = document.getElementById("time");
  const playButton = document.getElementById("play");
  const speedBox = document.getElementById("speed");
  slider.max = String(n - 1);
  let sample = 0, playing = false, modelTime = t[0], lastWall = null, dirty = true;
  const a = new THREE.Vector3(), b = new THREE.Vector3(), w = new THREE.Vector3();
  const qa = new THREE.Quaternion();

  function setSample(k) {
    k = Math.max(0, Math.min(n - 1, Math.round(k)));
    sample = k;
    for (let f = 0; f < F; f++) {
      const i = k * F + f;
      frameGroups[f].position.set(O[3 * i], O[3 * i + 1], O[3 * i + 2]);
      frameGroups[f].quaternion.set(Q[4 * i], Q[4 * i + 1], Q[4 * i + 2], Q[4 * i + 3])
        .normalize();  // quantised to 2^-24: made unit again
    }
    for (const s of spanning) {
      const ia = k * F + s.a, ib = k * F + s.b;
      a.set(O[3 * ia], O[3 * ia + 1], O[3 * ia + 2]);
      b.set(O[3 * ib], O[3 * ib + 1], O[3 * ib + 2]);
      const d = b.sub(a), len = d.length();
      qa.set(Q[4 * ia], Q[4 * ia + 1], Q[4 * ia + 2], Q[4 * ia + 3]).normalize();
      w.copy(s.width).applyQuaternion(qa);  // the width direction turns with frame a
      s.object.position.copy(a);
      s.object.quaternion.copy(len > 0 ? axesOf(d, w) : qa);
      s.object.scale.set(Math.max(len, 1e-12), 1, 1);
    }
    for (const line of trailLines) line.geometry.setDrawRange(0, k + 1);
    slider.value = String(k);
    timeText.textContent = "t = " + t[k].toFixed(t[n - 1] - t[0] < 10 ? 3 : 2) + " s";
    plots.setCursor(k);
    dirty = true;
  }

  function sampleAt(time) {  // the last output point at or before ``time``
    let lo = 0, hi = n - 1;
    if (time >= t[hi]) return hi;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (t[mid] <= time) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  function setPlaying(on) {
    playing = on && n > 1;
    if (playing && sample >= n - 1) setSample(0);
    modelTime = t[sample];
    lastWall = null;
    playButton.textContent = playing ? "❚❚" : "▶";
  }

  slider.addEventListener("input", () => { setPlaying(false); setSample(Number(slider.value)); });
  playButton.addEventListener("click", () => setPlaying(!playing));
  document.getElementById("reset").addEventListener("click", () => { resetCamera(); dirty = true; });
  trailsBox.addEventListener("change", showTrails);
  controls.addEventListener("change", () => { dirty = true; });
  window.addEventListener("keydown", (event) => {
    if (event.target.tagName === "SELECT") return;
    if (event.code === "Space") { setPlaying(!playing); event.preventDefault(); }
    if (event.code === "ArrowRight") { setPlaying(false); setSample(sample + 1); }
    if (event.code === "ArrowLeft") { setPlaying(false); setSample(sample - 1); }
  });

  function resize() {
    const width = Math.max(container.clientWidth, 1), height = Math.max(container.clientHeight, 1);
    renderer.setSize(width, height, false);
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
    plots.resize();
    dirty = true;
  }
  new ResizeObserver(resize).observe(container);
  resize();

  let renders = 0;
  function tick(wall) {
    if (playing) {
      if (lastWall !== null) {
        modelTime += (wall - lastWall) / 1000 * Number(speedBox.value);
        const k = sampleAt(modelTime);
        if (k !== sample) setSample(k);
        if (k >= n - 1) setPlaying(false);
      }
      lastWall = wall;
    }
    if (dirty) {
      renderer.render(scene, camera);
      renders++;
      dirty = false;
    }
    requestAnimationFrame(tick);
  }

  showTrails();
  setSample(0);
  renderer.render(scene, camera);
  renders++;
  dirty = false;
  requestAnimationFrame(tick);
  status.textContent = "";

  window.acausalViewer = {
    ready: true, n: n, frames: Object.keys(frameIndex), scene: scene, camera: camera,
    setSample: setSample,
    sample: () => sample,
    time: () => t[sample],
    timeAt: (k) => t[k],
    play: () => setPlaying(true),
    pause: () => setPlaying(false),
    framePosition: (name) => frameGroups[frameIndex[name]].position.toArray(),
    frameQuaternion: (name) => frameGroups[frameIndex[name]].quaternion.toArray(),
    renders: () => renders,
  };
}
