// The vidrouter console: every request goes to the public API with the user's key.
// No framework, no build step; DOM nodes are built with textContent (never innerHTML), so
// nothing the API returns (prompts, error messages) can inject markup.
"use strict";

const KEY_STORAGE = "vidrouter.apiKey";
const POLL_MS = 500;
const $ = (id) => document.getElementById(id);

const state = { key: null, models: [], historyAfter: null, polling: null };

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
  await Promise.all([loadHistory(true), loadUsage()]).catch((err) => console.error(err));
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
  onPickChange();
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
    $("current-cost").textContent = `Cost ${money(g.cost)} · ${g.duration} s · ${g.aspect_ratio} · via ${g.route}`;
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
      el("td", { text: when(g.created_at) }),
      el("td", { text: g.model }),
      el("td", { className: "prompt", title: g.prompt, text: g.prompt }),
      el("td", { className: `status status-${g.status}`, text: g.status.replace("_", " ") }),
      el("td", { text: money(g.cost) }),
      el("td", {}, g.video_url ? el("button", { type: "button", text: "Play", onclick: () => playFromHistory(g) }) : ""),
    ),
  );
  const tbody = $("history").tBodies[0];
  if (reset) tbody.replaceChildren(...rows);
  else tbody.append(...rows);
  state.historyAfter = page.data.length ? page.data[page.data.length - 1].id : null;
  $("more-history").hidden = !page.has_more;
}

function playFromHistory(g) {
  const video = $("history-video");
  video.src = g.video_url;
  video.hidden = false;
  video.play().catch(() => {});
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
    `${total.generations} generations (${total.completed} completed, ${total.failed} failed), ` +
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
  $("generate-form").addEventListener("submit", generate);
  $("refresh-history").addEventListener("click", () => loadHistory(true));
  $("more-history").addEventListener("click", () => loadHistory(false));
  const saved = sessionStorage.getItem(KEY_STORAGE);
  if (saved) {
    $("api-key").value = saved;
    useKey(saved);
  }
});
