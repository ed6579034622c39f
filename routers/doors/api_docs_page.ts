/**
 * A self-contained reference page for /api/docs: it reads /api/openapi.json
 * and lists every operation with its parameters and body. No CDN, so it works
 * on an offline self-hosted install.
 */
export const API_DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Parley API reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1f2937;background:#f9fafb}
header{background:#111827;color:#fff;padding:16px 24px}main{max-width:960px;margin:0 auto;padding:16px 24px}
h2{margin-top:32px;border-bottom:1px solid #e5e7eb;padding-bottom:4px}
details{background:#fff;border:1px solid #e5e7eb;border-radius:8px;margin:8px 0;padding:8px 12px}
summary{cursor:pointer;font-family:ui-monospace,monospace}
.m{display:inline-block;min-width:64px;font-weight:700}.GET{color:#2563eb}.POST{color:#059669}
.PUT{color:#d97706}.DELETE{color:#dc2626}.PATCH{color:#7c3aed}
pre{background:#f3f4f6;padding:8px;border-radius:6px;overflow:auto;font-size:13px}
input{width:100%;padding:8px;font-size:15px;border:1px solid #d1d5db;border-radius:6px}
</style></head><body>
<header><strong>Parley API reference</strong> &middot; <a style="color:#93c5fd" href="/api/openapi.json">openapi.json</a></header>
<main><input id="q" placeholder="Filter by path or name" aria-label="Filter operations"><div id="out">Loading…</div></main>
<script>
const out = document.getElementById("out");
function el(tag, text, cls) { const e = document.createElement(tag); if (text) e.textContent = text; if (cls) e.className = cls; return e; }
fetch("/api/openapi.json").then(r => r.json()).then(doc => {
  const groups = {};
  for (const [path, ops] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(ops)) {
      const group = path.split("/")[2] || "other";
      (groups[group] ||= []).push({ path, method: method.toUpperCase(), op });
    }
  }
  function render(filter) {
    out.replaceChildren();
    for (const [group, ops] of Object.entries(groups)) {
      const shown = ops.filter(o => !filter || (o.path + " " + (o.op.operationId || "")).toLowerCase().includes(filter));
      if (!shown.length) continue;
      out.append(el("h2", group));
      for (const o of shown) {
        const d = el("details"); const s = el("summary");
        s.append(el("span", o.method, "m " + o.method), document.createTextNode(o.path));
        d.append(s);
        if (o.op.summary) d.append(el("p", o.op.summary));
        if (o.op.parameters?.length) d.append(el("pre", "Parameters\\n" + JSON.stringify(o.op.parameters, null, 2)));
        if (o.op.requestBody) d.append(el("pre", "Body\\n" + JSON.stringify(o.op.requestBody.content, null, 2)));
        if (o.op.responses) d.append(el("pre", "Responses\\n" + JSON.stringify(o.op.responses, null, 2)));
        out.append(d);
      }
    }
  }
  render("");
  document.getElementById("q").addEventListener("input", e => render(e.target.value.toLowerCase()));
}).catch(() => { out.textContent = "Could not load the OpenAPI document."; });
</script></body></html>`;
