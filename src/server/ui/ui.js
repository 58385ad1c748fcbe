// The search page of `sieve serve --index NAME=DIR`: it calls the server's own
// API (/v1/indexes, /v1/models, /info, /v1/search) and renders every text it
// receives with textContent, never as markup, so a document cannot inject
// anything into the page.
"use strict";

const $ = (id) => document.getElementById(id);
const KEY_STORAGE = "sieve-api-key";
let apiKey = sessionStorage.getItem(KEY_STORAGE) || "";
let indexes = [];

class NeedsKey extends Error {}

async function api(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (apiKey) headers.Authorization = "Bearer " + apiKey;
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  if (response.status === 401) throw new NeedsKey("This server needs an API key.");
  const data = await response.json().catch(() => ({}));
  if (!response.ok) {
    const e = data.error;
    throw new Error((e && (e.message || e)) || data.message || `HTTP ${response.status}`);
  }
  return data;
}

function setStatus(text, isError = false) {
  $("status").textContent = text;
  $("status").classList.toggle("error", isError);
}

function option(value, label = value) {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = label;
  return o;
}

// The retrieval modes an index has: a sparse model adds "sparse".
function showModes() {
  const index = indexes.find((i) => i.name === $("index").value);
  const modes = ["hybrid", "vector", "bm25"];
  if (index && index.sparse_model) modes.push("sparse");
  const previous = $("mode").value;
  $("mode").replaceChildren(...modes.map((m) => option(m)));
  if (modes.includes(previous)) $("mode").value = previous;
}

async function loadRerankers() {
  const models = (await api("GET", "/v1/models")).data.map((m) => m.id);
  const infos = await Promise.all(models.map((m) => api("GET", "/info?model=" + encodeURIComponent(m))));
  const rerankers = models.filter((m, i) => infos[i].model_type && infos[i].model_type.reranker);
  $("reranker").replaceChildren(...rerankers.map((m) => option(m)));
  $("rerank").disabled = rerankers.length === 0;
  $("reranker").disabled = rerankers.length === 0 || !$("rerank").checked;
}

async function start() {
  try {
    indexes = (await api("GET", "/v1/indexes")).indexes;
    $("index").replaceChildren(...indexes.map((i) => option(i.name, `${i.name} (${i.documents} documents)`)));
    showModes();
    await loadRerankers();
    $("key-form").hidden = true;
    setStatus(indexes.length ? "" : "This server serves no index.");
  } catch (e) {
    if (e instanceof NeedsKey) {
      $("key-form").hidden = false;
      $("api-key").focus();
    }
    setStatus(e.message, true);
  }
}

// `matches` are byte spans of the UTF-8 text: cut the bytes, not the string.
function highlighted(text, matches) {
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  const out = document.createElement("p");
  out.className = "text";
  let at = 0;
  for (const [begin, end] of [...matches].sort((a, b) => a[0] - b[0])) {
    if (begin < at || end > bytes.length) continue;
    out.append(decoder.decode(bytes.slice(at, begin)));
    const mark = document.createElement("mark");
    mark.textContent = decoder.decode(bytes.slice(begin, end));
    out.append(mark);
    at = end;
  }
  out.append(decoder.decode(bytes.slice(at)));
  return out;
}

function line(className, text) {
  const p = document.createElement("p");
  p.className = className;
  p.textContent = text;
  return p;
}

function renderHit(hit) {
  const item = document.createElement("li");
  const title = document.createElement("h2");
  title.textContent = hit.title || hit.source.split("/").pop();
  const where = hit.section ? `${hit.section} · ` : "";
  item.append(title, line("source", `${hit.source} · ${where}chunk ${hit.chunk_index}`));
  const scores = [["score", hit.score], ["vector", hit.vector_score], ["bm25", hit.bm25_score],
                  ["sparse", hit.sparse_score], ["rerank", hit.rerank_score]]
    .filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => `${k} ${Number(v).toFixed(4)}`);
  item.append(line("scores", scores.join(" · ")), highlighted(hit.text, hit.matches || []));
  const metadata = Object.entries(hit.metadata || {});
  if (metadata.length) {
    const dl = document.createElement("dl");
    dl.className = "metadata";
    for (const [key, value] of metadata) {
      const dt = document.createElement("dt");
      dt.textContent = key;
      const dd = document.createElement("dd");
      dd.textContent = String(value);
      dl.append(dt, dd);
    }
    item.append(dl);
  }
  return item;
}

async function search(event) {
  event.preventDefault();
  const query = $("query").value.trim();
  if (!query) return;
  const body = { index: $("index").value, query, k: Number($("k").value) || 10, mode: $("mode").value };
  if ($("rerank").checked && $("reranker").value) body.rerank = $("reranker").value;
  setStatus("Searching…");
  $("search-button").disabled = true;
  const started = performance.now();
  try {
    const result = await api("POST", "/v1/search", body);
    const ms = performance.now() - started;
    $("results").replaceChildren(...result.hits.map(renderHit));
    const n = result.hits.length;
    setStatus(`${n} result${n === 1 ? "" : "s"} in ${ms.toFixed(0)} ms ` +
              `(server ${(result.seconds * 1000).toFixed(0)} ms, ${result.mode})`);
  } catch (e) {
    if (e instanceof NeedsKey) $("key-form").hidden = false;
    setStatus(e.message, true);
  } finally {
    $("search-button").disabled = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("search-form").addEventListener("submit", search);
  $("index").addEventListener("change", showModes);
  $("rerank").addEventListener("change", () => { $("reranker").disabled = !$("rerank").checked; });
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    apiKey = $("api-key").value.trim();
    sessionStorage.setItem(KEY_STORAGE, apiKey);
    start();
  });
  start();
});
