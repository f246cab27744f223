// The vidrouter console: every request goes to the public API with the user's key.
// No framework, no build step; DOM nodes are built with textContent (never innerHTML), so
// nothing the API returns (prompts, error messages) can inject markup.
"use strict";

const KEY_STORAGE = "vidrouter.apiKey";
const POLL_MS = 500;
const $ = (id) => document.getElementById(id);

const state = { key: null, models: [], historyAfter: null, polling: null, source: null };
// What each type reads beyond the prompt (the inputs shown for it).
const TYPES = {
  "text-to-video": "Text to video",
  "image-to-video": "Image to video (a first frame)",
  "reference-to-video": "Reference images to video",
  "video-to-video": "Video to video (re-render a source)",
  "video-extend": "Extend a video",
};
const NEEDS_SOURCE = ["video-to-video", "video-extend"];

class ApiError extends Error {
  constructor(status, error) {
    super(error.message);
    this.status = status;
    this.code = error.code;
  }
}

async function api(path, options = {}) {
  const headers = { Authorization: `Bearer ${state.key}`, ...(options.headers || {}) };
  let response;
  try {
    response = await fetch(path, { ...options, headers });
  } catch (err) {
    throw new ApiError(0, { code: "network_error", message: `the server could not be reached (${err.message})` });
  }
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = (body && body.error) || { code: `http_${response.status}`, message: response.statusText };
    if (response.status === 401) onKeyRefused(error);
    throw new ApiError(response.status, error);
  }
  return body;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === "className") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value);
  }
  for (const child of children) node.append(child);
  return node;
}

const money = (cost) => (cost ? `$${cost.amount.toFixed(cost.amount > 0 && cost.amount < 1 ? 4 : 2)}` : "—");
const when = (iso) => new Date(iso).toLocaleString();

function showMessage(node, text) {
  node.textContent = text;
  node.hidden = !text;
}

// The key.

function onKeyRefused(error) {
  $("app").hidden = true;
  showMessage($("key-message"), `API key refused: ${error.message} (${error.code}).`);
}

async function useKey(key) {
  state.key = key.trim();
  showMessage($("key-message"), "");
  if (!state.key) return;
  try {
    await loadModels();
  } catch (err) {
    if (err.status !== 401) showMessage($("key-message"), `Could not load the models: ${err.message}`);
    sessionStorage.removeItem(KEY_STORAGE);
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, state.key);
  $("app").hidden = false;
  await Promise.all([loadHistory(true), loadBatches(), loadUsage()]).catch((err) => console.error(err));
}

// Models and the pickers.

async function loadModels() {
  const list = await api("/v1/models");
  state.models = list.data;
  const tbody = $("models").tBodies[0];
  tbody.replaceChildren(
    ...state.models.map((m) =>
      el("tr", {},
        el("td", {}, el("strong", { text: m.id }), el("div", { className: "muted", text: m.name })),
        el("td", { text: m.provider }),
        el("td", { text: `${m.max_duration} s` }),
        el("td", { text: m.durations ? m.durations.join(", ") : "any" }),
        el("td", { text: m.aspect_ratios.join(", ") }),
        el("td", { text: `$${m.pricing.per_second} ${m.pricing.currency}` }),
        el("td", { className: `status status-${m.status}`, text: m.status }),
      ),
    ),
  );
  $("model").replaceChildren(...state.models.map((m) => el("option", { value: m.id, text: m.id })));
  onModelChange();
}

function currentModel() {
  return state.models.find((m) => m.id === $("model").value);
}

function onModelChange() {
  const model = currentModel();
  if (!model) return;
  const durations = model.durations || Array.from({ length: Math.floor(model.max_duration) }, (_, i) => i + 1);
  if (!durations.includes(model.default_duration)) durations.push(model.default_duration);
  durations.sort((a, b) => a - b);
  $("duration").replaceChildren(...durations.map((d) => el("option", { value: String(d), text: String(d) })));
  $("duration").value = String(model.default_duration);
  $("aspect-ratio").replaceChildren(...model.aspect_ratios.map((r) => el("option", { value: r, text: r })));
  const types = (model.capabilities || [model.type]).filter((t) => TYPES[t]);
  const previous = $("type").value;
  $("type").replaceChildren(...types.map((t) => el("option", { value: t, text: TYPES[t] })));
  if (types.includes(previous)) $("type").value = previous;
  $("end-frame-row").hidden = !(model.supports || []).includes("end_image_url");
  const most = ((model.limits || {}).references || {}).image;
  $("references-limit").textContent = most ? `up to ${most}` : "";
  onTypeChange();
}

function onTypeChange() {
  const type = $("type").value;
  $("image-inputs").hidden = type !== "image-to-video";
  $("reference-inputs").hidden = type !== "reference-to-video";
  $("source-inputs").hidden = !NEEDS_SOURCE.includes(type);
  // An extension's duration is the seconds it adds; the result is the whole video.
  document.querySelector('label[for="duration"]').textContent =
    type === "video-extend" ? "Seconds added" : "Duration (s)";
  if (NEEDS_SOURCE.includes(type)) loadSources().catch((err) => console.error(err));
  onPickChange();
}

// The completed generations of this account, as sources for an edit or an extension.
async function loadSources() {
  const page = await api("/v1/generations?limit=50&status=completed");
  const chosen = state.source || $("source-generation").value;
  $("source-generation").replaceChildren(
    ...page.data.map((g) =>
      el("option", { value: g.id, text: `${g.prompt.slice(0, 40)} · ${g.video_duration || g.duration} s · ${g.id}` }),
    ),
  );
  if (chosen && page.data.some((g) => g.id === chosen)) $("source-generation").value = chosen;
}

const dataUrl = (file) =>
  new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(reader.result);
    reader.onerror = () => reject(new Error(`cannot read ${file.name}`));
    reader.readAsDataURL(file);
  });

// The request's inputs for its type: images as data: URLs (kept by the server at accept),
// the source as a generation of this account or a URL.
async function inputsFor(type) {
  const inputs = { type };
  if (type === "image-to-video") {
    const [first] = $("first-frame").files;
    if (first) inputs.image_url = await dataUrl(first);
    const [last] = $("end-frame").files;
    if (last && !$("end-frame-row").hidden) inputs.end_image_url = await dataUrl(last);
  } else if (type === "reference-to-video") {
    const files = Array.from($("references").files);
    inputs.references = await Promise.all(files.map(async (f) => ({ type: "image", url: await dataUrl(f) })));
  } else if (NEEDS_SOURCE.includes(type)) {
    const url = $("source-url").value.trim();
    const id = $("source-generation").value;
    if (url) inputs.video = { url };
    else if (id) inputs.video = { generation_id: id };
  }
  return inputs;
}

function onPickChange() {
  const model = currentModel();
  if (!model) return;
  const price = model.pricing.per_second * Number($("duration").value);
  $("estimate").textContent = `≈ $${price.toFixed(2)} ${model.pricing.currency}`;
}

// Generating.

async function generate(event) {
  event.preventDefault();
  stopPolling();
  const body = {
    model: $("model").value,
    prompt: $("prompt").value,
    duration: Number($("duration").value),
    aspect_ratio: $("aspect-ratio").value,
  };
  $("generate").disabled = true;
  $("current").hidden = false;
  $("current-video").hidden = true;
  $("current-video").removeAttribute("src");
  showMessage($("current-error"), "");
  $("current-cost").textContent = "";
  try {
    Object.assign(body, await inputsFor($("type").value));
    const generation = await api("/v1/generations", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() },
      body: JSON.stringify(body),
    });
    showGeneration(generation);
    poll(generation.id, Date.now());
  } catch (err) {
    $("current-id").textContent = "";
    $("current-status").textContent = "";
    showMessage($("current-error"), `${err.code}: ${err.message}`);
    $("generate").disabled = false;
  }
}

function poll(id, started) {
  state.polling = setTimeout(async () => {
    try {
      const generation = await api(`/v1/generations/${encodeURIComponent(id)}`);
      showGeneration(generation, started);
      if (["completed", "failed", "canceled"].includes(generation.status)) {
        $("generate").disabled = false;
        loadHistory(true);
        loadUsage();
        return;
      }
    } catch (err) {
      showMessage($("current-error"), `${err.code}: ${err.message}`);
      if (err.status === 401) return;
    }
    poll(id, started);
  }, POLL_MS);
}

function stopPolling() {
  if (state.polling) clearTimeout(state.polling);
  state.polling = null;
}

function showGeneration(g, started = Date.now()) {
  $("current-id").textContent = g.id;
  const status = $("current-status");
  status.textContent = g.status.replace("_", " ") + (g.progress != null ? ` ${g.progress}%` : "");
  status.className = `status status-${g.status}`;
  $("current-elapsed").textContent = `${Math.round((Date.now() - started) / 1000)} s`;
  $("current-progress").value = g.status === "completed" ? 100 : g.progress || 0;
  if (g.status === "completed" && g.video_url) {
    const video = $("current-video");
    video.src = g.video_url;
    video.hidden = false;
    video.play().catch(() => {});
    $("current-cost").textContent = `Cost ${money(g.cost)} · ${g.type} · ${g.duration} s · ${g.aspect_ratio} · via ${g.route}`;
  }
  if (g.error) showMessage($("current-error"), `${g.error.code}: ${g.error.message}`);
}

// History.

async function loadHistory(reset) {
  const params = new URLSearchParams({ limit: "10" });
  if (!reset && state.historyAfter) params.set("after", state.historyAfter);
  const page = await api(`/v1/generations?${params}`);
  const rows = page.data.map((g) =>
    el("tr", {},
      el("td", {}, g.thumbnail_url ? poster(g) : ""),
      el("td", { text: when(g.created_at) }),
      el("td", {}, g.model, el("div", { className: "muted", text: g.type || "" })),
      el("td", { className: "prompt", title: g.prompt, text: g.prompt }),
      el("td", { className: `status status-${g.status}`, text: g.status.replace("_", " ") + (g.cached_from ? " (cached)" : "") }),
      el("td", { text: money(g.cost) }),
      el("td", {}, ...(g.video_url ? [
        el("button", { type: "button", text: "Play", onclick: () => playFromHistory(g) }), " ",
        el("button", { type: "button", text: "Extend", onclick: () => useAsSource(g, "video-extend") }), " ",
        el("button", { type: "button", text: "Re-render", onclick: () => useAsSource(g, "video-to-video") }),
      ] : [])),
    ),
  );
  const tbody = $("history").tBodies[0];
  if (reset) tbody.replaceChildren(...rows);
  else tbody.append(...rows);
  state.historyAfter = page.data.length ? page.data[page.data.length - 1].id : null;
  $("more-history").hidden = !page.has_more;
}

// The poster (our content host's `thumbnail_url`): clicking it plays the video.
function poster(g) {
  return el("img", {
    className: "poster", src: g.thumbnail_url, alt: "", loading: "lazy",
    onclick: () => playFromHistory(g),
  });
}

// A history row's video as the source of the next generation (same model when it can).
async function useAsSource(g, type) {
  if (!(currentModel().capabilities || []).includes(type)) {
    const able = state.models.find((m) => m.id === g.model && (m.capabilities || []).includes(type))
      || state.models.find((m) => (m.capabilities || []).includes(type));
    if (!able) return;
    $("model").value = able.id;
    onModelChange();
  }
  $("type").value = type;
  $("source-url").value = "";
  state.source = g.id;
  onTypeChange();
  $("generate-section").scrollIntoView();
}

function playFromHistory(g) {
  const video = $("history-video");
  video.poster = g.thumbnail_url || "";
  video.src = g.video_url;
  video.hidden = false;
  video.play().catch(() => {});
}

// Batches: each with its progress (lines done of all, failed, cost so far); results download
// as JSONL (fetched with the key, so the link is a blob of this page).

const BATCH_ENDED = ["completed", "failed", "canceled"];

async function loadBatches() {
  const page = await api("/v1/batches?limit=20");
  const rows = page.data.map((b) => {
    const done = b.counts.completed + b.counts.failed + b.counts.canceled;
    const actions = el("td", {},
      el("button", { type: "button", text: "Results", onclick: () => downloadResults(b.id) }));
    if (!BATCH_ENDED.includes(b.status) && b.status !== "canceling") {
      actions.append(" ", el("button", { type: "button", text: "Cancel", onclick: () => cancelBatch(b.id) }));
    }
    return el("tr", { "data-batch": b.id },
      el("td", { text: when(b.created_at) }),
      el("td", { className: "mono", text: b.id }),
      el("td", { className: `status status-${b.status}`, text: b.status.replace("_", " ") + (b.error && b.error.code !== "canceled" ? ` (${b.error.code})` : "") }),
      el("td", {}, el("progress", { max: String(b.total), value: String(done) }), ` ${done} / ${b.total}`),
      el("td", { text: String(b.counts.failed) }),
      el("td", { text: `${money(b.cost)} of ≈ ${money(b.estimated_total)}` }),
      actions,
    );
  });
  $("batches").tBodies[0].replaceChildren(...rows);
}

async function cancelBatch(id) {
  try {
    await api(`/v1/batches/${encodeURIComponent(id)}/cancel`, { method: "POST" });
  } catch (err) {
    showMessage($("batches-message"), `${err.code}: ${err.message}`);
  }
  await loadBatches();
}

async function downloadResults(id) {
  const response = await fetch(`/v1/batches/${encodeURIComponent(id)}/results`, {
    headers: { Authorization: `Bearer ${state.key}` },
  });
  if (!response.ok) {
    showMessage($("batches-message"), `results of ${id}: HTTP ${response.status}`);
    return;
  }
  const link = el("a", { href: URL.createObjectURL(await response.blob()), download: `${id}.jsonl` });
  link.click();
  URL.revokeObjectURL(link.href);
}

// Usage: cost per UTC day over the last 30 days, drawn as SVG bars.

async function loadUsage() {
  const to = new Date();
  const from = new Date(to.getTime() - 29 * 86400000);
  const day = (d) => d.toISOString().slice(0, 10);
  const params = new URLSearchParams({ from: day(from), to: day(to), group_by: "day" });
  const usage = await api(`/v1/usage?${params}`);
  const byDay = new Map(usage.data.map((row) => [row.day, row]));
  const days = Array.from({ length: 30 }, (_, i) => day(new Date(from.getTime() + i * 86400000)));
  const total = usage.total;
  $("usage-total").textContent =
    `${total.generations} generations (${total.completed} completed, ${total.cached || 0} of them from the cache, ${total.failed} failed), ` +
    `${total.billed_seconds} s billed, ${money(total.cost)} in total.`;
  drawChart(days.map((d) => ({ day: d, cost: byDay.has(d) ? byDay.get(d).cost.amount : 0, count: byDay.has(d) ? byDay.get(d).generations : 0 })));
}

function drawChart(points) {
  const svg = $("usage-chart");
  const ns = "http://www.w3.org/2000/svg";
  const make = (tag, attrs, text) => {
    const node = document.createElementNS(ns, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const width = 760, height = 220, left = 56, bottom = 28, top = 12;
  const max = Math.max(...points.map((p) => p.cost), 0);
  const scale = max > 0 ? max : 1;
  const slot = (width - left - 8) / points.length;
  const nodes = [
    make("line", { x1: left, y1: height - bottom, x2: width - 4, y2: height - bottom, class: "axis" }),
    make("line", { x1: left, y1: top, x2: left, y2: height - bottom, class: "axis" }),
    make("text", { x: left - 6, y: top + 8, "text-anchor": "end" }, `$${scale.toFixed(scale < 1 ? 4 : 2)}`),
    make("text", { x: left - 6, y: height - bottom, "text-anchor": "end" }, "$0"),
  ];
  points.forEach((p, i) => {
    const h = ((height - bottom - top) * p.cost) / scale;
    const x = left + i * slot + 2;
    const bar = make("rect", { x, y: height - bottom - h, width: Math.max(slot - 4, 1), height: Math.max(h, p.count ? 1 : 0), class: "bar" });
    bar.append(make("title", {}, `${p.day}: $${p.cost.toFixed(4)}, ${p.count} generations`));
    nodes.push(bar);
    if (i % 5 === 0 || i === points.length - 1) {
      nodes.push(make("text", { x: x + slot / 2, y: height - bottom + 16, "text-anchor": "middle" }, p.day.slice(5)));
    }
  });
  svg.replaceChildren(...nodes);
}

// Wiring.

document.addEventListener("DOMContentLoaded", () => {
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    useKey($("api-key").value);
  });
  $("forget-key").addEventListener("click", () => {
    sessionStorage.removeItem(KEY_STORAGE);
    state.key = null;
    $("api-key").value = "";
    $("app").hidden = true;
    stopPolling();
  });
  $("model").addEventListener("change", onModelChange);
  $("duration").addEventListener("change", onPickChange);
  $("type").addEventListener("change", onTypeChange);
  $("source-generation").addEventListener("change", () => { state.source = $("source-generation").value; });
  $("generate-form").addEventListener("submit", generate);
  $("refresh-history").addEventListener("click", () => loadHistory(true));
  $("more-history").addEventListener("click", () => loadHistory(false));
  $("refresh-batches").addEventListener("click", () => loadBatches());
  const saved = sessionStorage.getItem(KEY_STORAGE);
  if (saved) {
    $("api-key").value = saved;
    useKey(saved);
  }
});
