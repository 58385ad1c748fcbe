// Renders /openapi.json as a page: every route by API, its parameters, request and answers, and a form to send
// a request to this server. Everything from the document is set as text, never as markup.
"use strict";

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return node;
}

function resolve(doc, schema, depth) {
  if (!schema || depth > 6) return schema;
  if (schema.$ref) return resolve(doc, schema.$ref.split("/").slice(1).reduce((o, k) => o[k], doc), depth + 1);
  if (Array.isArray(schema)) return schema.map((s) => resolve(doc, s, depth + 1));
  if (typeof schema !== "object") return schema;
  const out = {};
  for (const [k, v] of Object.entries(schema)) out[k] = resolve(doc, v, depth + 1);
  return out;
}

function example(schema) {
  if (!schema || typeof schema !== "object") return null;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.oneOf) return example(schema.oneOf[0]);
  if (type === "object" || schema.properties) {
    const out = {};
    for (const name of schema.required || []) out[name] = example(schema.properties[name]);
    return out;
  }
  if (type === "array") return [example(schema.items)];
  if (type === "integer" || type === "number") return schema.minimum || 1;
  if (type === "boolean") return false;
  return "text";
}

function operation(doc, path, method, op) {
  const body = op.requestBody && resolve(doc, op.requestBody.content["application/json"].schema, 0);
  const parts = [el("p", {}, op.summary || "")];
  if (op.parameters) {
    const rows = op.parameters.map((p) => el("tr", {}, el("td", {}, el("code", {}, p.name)), el("td", {}, p.in),
                                           el("td", {}, p.required ? "required" : "optional")));
    parts.push(el("h4", {}, "Parameters"), el("table", {}, ...rows));
  }
  if (body) parts.push(el("h4", {}, "Request body"), el("pre", {}, JSON.stringify(body, null, 1)));
  const codes = Object.keys(op.responses).join(", ");
  parts.push(el("h4", {}, "Answers: " + codes));
  const ok = op.responses["200"] && op.responses["200"].content;
  if (ok && ok["application/json"]) parts.push(el("pre", {}, JSON.stringify(resolve(doc, ok["application/json"].schema, 0), null, 1)));
  if (!path.includes("{")) {
    const input = el("textarea", { "aria-label": "request body" });
    input.value = body ? JSON.stringify(example(body), null, 1) : "";
    const output = el("pre", { class: "answer", "aria-live": "polite" });
    const send = el("button", { type: "button" }, "Send");
    send.addEventListener("click", async () => {
      const headers = { "Content-Type": "application/json" };
      const key = document.getElementById("key").value;
      if (key) headers.Authorization = "Bearer " + key;
      output.textContent = "...";
      try {
        const init = { method: method.toUpperCase(), headers };
        if (body) init.body = input.value;
        const res = await fetch(path, init);
        output.textContent = res.status + " " + res.statusText + "\n" + (await res.text()).slice(0, 20000);
      } catch (e) {
        output.textContent = String(e);
      }
    });
    if (body) parts.push(el("h4", {}, "Try it"), input);
    parts.push(send, output);
  }
  return el("details", {}, el("summary", {}, el("span", { class: "method " + method }, method), " ",
                              el("span", { class: "path" }, path)), ...parts);
}

async function main() {
  const status = document.getElementById("status");
  let doc;
  try {
    doc = await (await fetch("/openapi.json")).json();
  } catch (e) {
    status.textContent = "Could not read /openapi.json: " + e;
    return;
  }
  status.remove();
  document.title = doc.info.title + " API " + doc.info.version;
  const api = document.getElementById("api");
  const toc = document.getElementById("toc");
  api.append(el("p", {}, doc.info.description || ""));
  for (const tag of doc.tags.map((t) => t.name)) {
    const id = "tag-" + tag.replace(/\W+/g, "-");
    toc.append(el("a", { href: "#" + id }, tag));
    const section = el("section", { id }, el("h2", {}, tag));
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if ((op.tags || []).includes(tag)) section.append(operation(doc, path, method, op));
      }
    }
    api.append(section);
  }
}

main();
