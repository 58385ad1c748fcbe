// The search page of `sieve serve --index NAME=DIR`: it calls the server's own
// API (/v1/indexes, /v1/models, /info, /v1/search, /v1/documents) and renders
// every text it receives with textContent, never as markup, so a document
// cannot inject anything into the page. The page's state lives in its
// address (?q=...&page=2, or ?doc=ID for a document's text), so the
// browser's back button and links work.
"use strict";

const $ = (id) => document.getElementById(id);
const KEY_STORAGE = "sieve-api-key";
// Text shown around a hit in the document view, each side (bytes).
const CONTEXT_BYTES = 32768;
let apiKey = sessionStorage.getItem(KEY_STORAGE) || "";
let indexes = [];
let started = false;

class NeedsKey extends Error {}

async function request(method, path, body) {
  const headers = { "Content-Type": "application/json" };
  if (apiKey) headers.Authorization = "Bearer " + apiKey;
  const response = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  if (response.status === 401) throw new NeedsKey("This server needs an API key.");
  return response;
}

async function failure(response) {
  const data = await response.json().catch(() => ({}));
  const e = data.error;
  return new Error((e && (e.message || e)) || data.message || `HTTP ${response.status}`);
}

async function api(method, path, body) {
  const response = await request(method, path, body);
  if (!response.ok) throw await failure(response);
  return response.json().catch(() => ({}));
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

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

function currentIndex() {
  return indexes.find((i) => i.name === $("index").value);
}

// The retrieval modes an index has: a sparse model adds "sparse".
function showModes() {
  const index = currentIndex();
  const modes = ["hybrid", "vector", "bm25"];
  if (index && index.sparse_model) modes.push("sparse");
  const previous = $("mode").value;
  $("mode").replaceChildren(...modes.map((m) => option(m)));
  if (modes.includes(previous)) $("mode").value = previous;
}

// The formats the index holds, from its statistics (with how many documents of each).
function showFormats() {
  const index = currentIndex();
  const counts = (index && index.documents_by_format) || {};
  const previous = $("format").value;
  const names = Object.keys(counts).filter((f) => f).sort();
  $("format").replaceChildren(option("", "any"), ...names.map((f) => option(f, `${f} (${counts[f]})`)));
  if (names.includes(previous)) $("format").value = previous;
}

function indexChanged() {
  showModes();
  showFormats();
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
    indexChanged();
    await loadRerankers();
    $("key-form").hidden = true;
    setStatus(indexes.length ? "" : "This server serves no index.");
    started = true;
    await show();
  } catch (e) {
    if (e instanceof NeedsKey) {
      $("key-form").hidden = false;
      $("api-key").focus();
    }
    setStatus(e.message, true);
  }
}

// `spans` are byte spans of the UTF-8 text: cut the bytes, not the string.
function highlighted(text, spans, tag = "p", className = "text") {
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  const out = element(tag, className);
  let at = 0;
  for (const [begin, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (begin < at || end > bytes.length || end < begin) continue;
    out.append(decoder.decode(bytes.slice(at, begin)));
    out.append(element("mark", "", decoder.decode(bytes.slice(begin, end))));
    at = end;
  }
  out.append(decoder.decode(bytes.slice(at)));
  return out;
}

const line = (className, text) => element("p", className, text);
const present = (v) => v !== null && v !== undefined;

// The page's own address for a view: the search (q, index, mode, k, filters, page) or a document.
function address(params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (present(value) && value !== "") query.set(key, String(value));
  }
  return "/ui?" + query.toString();
}

function originalUrl(hit, index) {
  let url = `/v1/documents/${encodeURIComponent(hit.document_id)}/original?index=${encodeURIComponent(index)}`;
  const page = /^page (\d+)$/.exec(hit.section || "");
  if (hit.format === "pdf" && page) url += `#page=${page[1]}`;
  return url;
}

// With an API key a plain link cannot send it: fetch the file, and open it
// from memory (a PDF at its page; any other type as plain text, never as
// markup in this page's origin).
async function openOriginal(event) {
  if (!apiKey) return;  // the link works as it is
  event.preventDefault();
  const link = event.currentTarget;
  const [path, fragment] = link.getAttribute("href").split("#");
  try {
    const response = await request("GET", path);
    if (!response.ok) throw await failure(response);
    const header = (response.headers.get("Content-Type") || "").toLowerCase();
    const type = header.split(";")[0].trim();
    const bytes = await response.arrayBuffer();
    const charset = /charset=utf-8/.test(header) ? "; charset=utf-8" : "";
    const safe = type === "application/pdf" ? type : type.startsWith("text/") ? "text/plain" + charset : type;
    const url = URL.createObjectURL(new Blob([bytes], { type: safe }));
    if (safe === "application/pdf" || safe.startsWith("text/plain")) {
      window.open(url + (fragment ? "#" + fragment : ""), "_blank", "noopener");
    } else {
      const a = element("a");
      a.href = url;
      a.download = link.dataset.filename || "document";
      a.click();
    }
    setTimeout(() => URL.revokeObjectURL(url), 60000);
  } catch (e) {
    if (e instanceof NeedsKey) $("key-form").hidden = false;
    setStatus(e.message, true);
  }
}

function link(text, href, className) {
  const a = element("a", className, text);
  a.href = href;
  return a;
}

function renderHit(hit, index, search) {
  const item = document.createElement("li");
  const title = element("h2");
  const name = hit.title || hit.source.split("/").pop();
  // The text view opens at the chunk, marked; the page keeps the search to come back to.
  // A file name (no title) is a path: it may break anywhere; a title only between words.
  title.append(link(name, address({ index, doc: hit.document_id, begin: hit.chunk_begin, end: hit.chunk_end,
                                    from: search }), hit.title ? "view" : "view path"));
  item.append(title);

  const facts = element("p", "facts");
  if (hit.format) facts.append(element("span", "format", hit.format));
  if (hit.section) facts.append(element("span", "section", hit.section));
  if (present(hit.relevance)) facts.append(element("span", "relevance", `${Math.round(hit.relevance * 100)}% relevant`));
  if (hit.document_id === hit.source) {
    const original = link("original file", originalUrl(hit, index), "original");
    original.dataset.filename = hit.source.split("/").pop();
    original.target = "_blank";
    original.rel = "noopener";
    original.addEventListener("click", openOriginal);
    facts.append(original);
  }
  item.append(facts);

  const where = hit.document_id === hit.source ? hit.source : `${hit.document_id} · in ${hit.source}`;
  item.append(line("source", `${where} · chunk ${hit.chunk_index}`));
  const scores = [["score", hit.score], ["vector", hit.vector_score], ["bm25", hit.bm25_score],
                  ["sparse", hit.sparse_score], ["rerank", hit.rerank_score]]
    .filter(([, v]) => present(v)).map(([k, v]) => `${k} ${Number(v).toFixed(4)}`);
  item.append(line("scores", scores.join(" · ")));
  // A short snippet around the matches where the server makes one, else the chunk.
  if (typeof hit.snippet === "string") item.append(highlighted(hit.snippet, hit.snippet_matches || []));
  else item.append(highlighted(hit.text, hit.matches || []));

  const metadata = Object.entries(hit.metadata || {});
  if (metadata.length) {
    const dl = element("dl", "metadata");
    for (const [key, value] of metadata) dl.append(element("dt", "", key), element("dd", "", String(value)));
    item.append(dl);
  }
  return item;
}

// The search the form describes, as the address's parameters.
function formSearch(page = 1) {
  return {
    q: $("query").value.trim(), index: $("index").value, mode: $("mode").value, k: Number($("k").value) || 10,
    format: $("format").value, folder: $("folder").value.trim(),
    rerank: $("rerank").checked && $("reranker").value ? $("reranker").value : "", page: page > 1 ? page : "",
  };
}

function fillForm(p) {
  $("query").value = p.get("q") || "";
  if (p.get("index") && indexes.some((i) => i.name === p.get("index"))) $("index").value = p.get("index");
  indexChanged();
  if (p.get("mode")) $("mode").value = p.get("mode");
  if (p.get("k")) $("k").value = p.get("k");
  $("format").value = p.get("format") || "";
  $("folder").value = p.get("folder") || "";
  $("rerank").checked = Boolean(p.get("rerank")) && !$("rerank").disabled;
  $("reranker").disabled = $("rerank").disabled || !$("rerank").checked;
  if ($("rerank").checked) $("reranker").value = p.get("rerank");
}

function showView(documentView) {
  $("document").hidden = !documentView;
  $("results").hidden = documentView;
  if (documentView) $("pager").hidden = true;
}

async function runSearch(p) {
  showView(false);
  const k = Math.max(1, Math.min(100, Number(p.get("k")) || 10));
  const page = Math.max(1, Number(p.get("page")) || 1);
  const index = p.get("index") || $("index").value;
  const body = { index, query: p.get("q"), k, mode: p.get("mode") || "hybrid", offset: (page - 1) * k };
  if (p.get("format")) body.formats = [p.get("format")];
  if (p.get("folder")) body.folders = [p.get("folder")];
  if (p.get("rerank")) body.rerank = p.get("rerank");
  setStatus("Searching…");
  $("search-button").disabled = true;
  const begun = performance.now();
  try {
    const result = await api("POST", "/v1/search", body);
    const ms = performance.now() - begun;
    const search = location.search;
    $("results").start = body.offset + 1;
    $("results").replaceChildren(...result.hits.map((hit) => renderHit(hit, index, search)));
    const n = result.hits.length;
    const range = n ? ` (${body.offset + 1}–${body.offset + n})` : "";
    setStatus(`${n} result${n === 1 ? "" : "s"}${range} in ${ms.toFixed(0)} ms ` +
              `(server ${(result.seconds * 1000).toFixed(0)} ms, ${result.mode})`);
    // A full page may have a next one; the last one the server allows (offset + k at most 1000) has none.
    $("previous").disabled = page <= 1;
    $("next").disabled = n < k || body.offset + 2 * k > 1000;
    $("page").textContent = `Page ${page}`;
    $("pager").hidden = page <= 1 && n < k;
  } catch (e) {
    if (e instanceof NeedsKey) $("key-form").hidden = false;
    $("pager").hidden = true;
    setStatus(e.message, true);
  } finally {
    $("search-button").disabled = false;
  }
}

// A document's text around a hit, the hit marked and scrolled to.
async function showDocument(p) {
  showView(true);
  const index = p.get("index") || "";
  const id = p.get("doc");
  const begin = Number(p.get("begin")) || 0;
  const end = Math.max(begin, Number(p.get("end")) || begin);
  const whole = p.get("whole") === "1";
  const from = whole ? 0 : Math.max(0, begin - CONTEXT_BYTES);
  const to = whole ? "" : `&end=${end + CONTEXT_BYTES}`;
  $("back").href = p.get("from") ? "/ui" + p.get("from") : "/ui";
  $("document-title").textContent = "";
  $("document-source").textContent = "";
  $("document-links").replaceChildren();
  $("document-text").replaceChildren();
  setStatus("Loading…");
  try {
    const doc = await api("GET", `/v1/documents/${encodeURIComponent(id)}?index=${encodeURIComponent(index)}` +
                                 `&begin=${from}${to}`);
    $("document-title").textContent = doc.title || doc.source.split("/").pop();
    $("document-title").classList.toggle("path", !doc.title);
    const where = doc.id === doc.source ? doc.source : `${doc.id} · in ${doc.source}`;
    $("document-source").textContent = [doc.format, where].filter((x) => x).join(" · ");
    const links = $("document-links");
    if (doc.id === doc.source) {
      const section = [...(doc.sections || [])].filter((s) => s.begin <= begin).pop();
      const original = link("original file", originalUrl({ document_id: doc.id, format: doc.format,
                                                           section: section && section.name }, index), "original");
      original.dataset.filename = doc.source.split("/").pop();
      original.target = "_blank";
      original.rel = "noopener";
      original.addEventListener("click", openOriginal);
      links.append(original);
    }
    if (doc.begin > 0 || doc.end < doc.length) {
      const all = new URLSearchParams(p);
      all.set("whole", "1");
      if (links.childNodes.length) links.append(" · ");
      links.append(link(`whole document (${doc.length} bytes)`, "/ui?" + all.toString(), "whole"));
    }
    const text = highlighted(doc.text, [[begin - doc.begin, end - doc.begin]], "div", "document-text-body");
    if (doc.begin > 0) text.prepend("…");
    if (doc.end < doc.length) text.append("…");
    $("document-text").replaceChildren(text);
    setStatus("");
    const mark = text.querySelector("mark");
    if (mark) mark.scrollIntoView({ block: "center" });
  } catch (e) {
    if (e instanceof NeedsKey) $("key-form").hidden = false;
    setStatus(e.message, true);
  }
}

// Shows what the address says.
async function show() {
  if (!started) return;
  const p = new URLSearchParams(location.search);
  if (p.get("doc")) return showDocument(p);
  fillForm(p);
  if (p.get("q")) return runSearch(p);
  showView(false);
  $("results").replaceChildren();
  $("pager").hidden = true;
}

function go(params) {
  history.pushState(null, "", address(params));
  show();
}

function submit(event) {
  event.preventDefault();
  const search = formSearch();
  if (!search.q) return;
  go(search);
}

function turnPage(delta) {
  const p = new URLSearchParams(location.search);
  const page = Math.max(1, (Number(p.get("page")) || 1) + delta);
  go({ ...Object.fromEntries(p), page: page > 1 ? page : "" });
}

document.addEventListener("DOMContentLoaded", () => {
  $("search-form").addEventListener("submit", submit);
  $("index").addEventListener("change", indexChanged);
  $("rerank").addEventListener("change", () => { $("reranker").disabled = !$("rerank").checked; });
  $("previous").addEventListener("click", () => turnPage(-1));
  $("next").addEventListener("click", () => turnPage(1));
  // Links within the page change the view without reloading it.
  document.addEventListener("click", (event) => {
    const a = event.target.closest && event.target.closest("a.view, a.whole, #back, #home");
    if (!a || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    history.pushState(null, "", a.getAttribute("href"));
    show();
  });
  window.addEventListener("popstate", show);
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    apiKey = $("api-key").value.trim();
    sessionStorage.setItem(KEY_STORAGE, apiKey);
    start();
  });
  start();
});
