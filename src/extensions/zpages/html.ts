/**
 * The zpages' shared HTML: escaping, the page frame with its inline stylesheet, tables and number formats.
 * Everything is inline (no script, no external asset), so a page works on an air-gapped host and in a
 * phone's browser; tables turn into labelled cards on narrow screens.
 */

/** The zpages, as linked from every page's navigation. */
export const ZPAGES = [
  ['/debug/servicez', 'servicez'],
  ['/debug/pipelinez', 'pipelinez'],
  ['/debug/extensionz', 'extensionz'],
  ['/debug/featurez', 'featurez'],
  ['/debug/eventhubz', 'eventhubz'],
] as const;

/** Text made safe for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Raw HTML that `table` cells and `page` bodies insert as is (already escaped by whoever built it). */
export interface Html {
  readonly html: string;
}

export const raw = (html: string): Html => ({ html });

const cell = (v: unknown): string => (typeof v === 'object' && v !== null && 'html' in v ? (v as Html).html : esc(v));

/**
 * A table whose cells carry their column name (`data-label`): on a narrow screen each row becomes a card
 * with the names beside the values. `rowAttrs` adds attributes to a row (e.g. `data-partition`).
 */
export function table(
  headers: readonly string[],
  rows: readonly (readonly unknown[])[],
  rowAttrs?: (i: number) => string,
): string {
  const head = headers.map((h) => `<th>${esc(h)}</th>`).join('');
  const body = rows
    .map((r, i) => {
      // One span per cell: on a phone the cell is a flex row of its label and this span.
      const cells = r.map((v, c) => `<td data-label="${esc(headers[c])}"><span>${cell(v)}</span></td>`).join('');
      return `<tr${rowAttrs ? ` ${rowAttrs(i)}` : ''}>${cells}</tr>`;
    })
    .join('\n');
  return `<div class="scroll"><table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

const CSS = `
:root{--fg:#1d2430;--muted:#5b6577;--bg:#fff;--line:#dde2ea;--head:#f3f5f9;--bad:#b42318;--warn:#a15c07;--ok:#067647}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header{background:#0f2d52;color:#fff;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.4rem 1rem;align-items:baseline}
header b{font-size:1.05rem}
header a{color:#cfe0ff;text-decoration:none}
header a[aria-current]{color:#fff;text-decoration:underline}
main{padding:.5rem 1rem 2rem;max-width:1400px}
h1{font-size:1.3rem;margin:.8rem 0 .3rem}
h2{font-size:1.1rem;margin:1.4rem 0 .4rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1rem;margin:1rem 0 .3rem}
.muted{color:var(--muted)}
.bad{color:var(--bad);font-weight:600}
.warn{color:var(--warn);font-weight:600}
.ok{color:var(--ok)}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;margin:.3rem 0}
th,td{border-bottom:1px solid var(--line);padding:.3rem .45rem;text-align:left;vertical-align:middle;white-space:nowrap}
th{background:var(--head);font-weight:600}
td.wrap,td .wrap{white-space:normal;word-break:break-word}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace;background:var(--head);padding:0 .2rem;border-radius:3px}
.kv{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.3rem 0}
.kv dt{color:var(--muted)}
.kv dd{margin:0;word-break:break-word}
.tiles{display:flex;flex-wrap:wrap;gap:.5rem;margin:.4rem 0}
.tile{border:1px solid var(--line);border-radius:6px;padding:.35rem .6rem;min-width:8.5rem}
.tile b{display:block;font-size:1.15rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;border-radius:2px;vertical-align:-1px;margin-right:.3rem}
svg{display:block}
@media (max-width:700px){
  main{padding:.4rem .6rem 2rem}
  table,thead,tbody,tr,td{display:block;width:100%}
  thead{display:none}
  tr{border:1px solid var(--line);border-radius:6px;margin:.5rem 0;padding:.2rem .4rem}
  td{border:0;padding:.15rem 0;white-space:normal;display:flex;justify-content:space-between;gap:1rem}
  td::before{content:attr(data-label);color:var(--muted);flex:none}
  .kv{grid-template-columns:1fr}
}`;

/** A complete page: the navigation, a heading and `body` (HTML). `refreshS` adds a meta refresh. */
export function page(title: string, path: string, body: string, refreshS?: number): string {
  const nav = ZPAGES.map(
    ([href, name]) => `<a href="${href}"${href === path ? ' aria-current="page"' : ''}>${name}</a>`,
  ).join(' ');
  const refresh = refreshS ? `<meta http-equiv="refresh" content="${Math.max(1, Math.floor(refreshS))}">` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">${refresh}
<title>${esc(title)} · otelcol-azure-eventhub</title>
<style>${CSS}</style></head>
<body><header><b>otelcol-azure-eventhub</b><nav>${nav}</nav></header>
<main><h1>${esc(title)}</h1>
${body}
</main></body></html>
`;
}

/** A definition list of label → value pairs (values are escaped unless `raw`). */
export function keyValues(pairs: readonly (readonly [string, unknown])[]): string {
  return `<dl class="kv">${pairs.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${cell(v)}</dd>`).join('')}</dl>`;
}

/** Seconds as `42s`, `3m 05s`, `2h 10m`, `3d 4h`; `—` when unknown. */
export function duration(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds)) return '—';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
  return `${Math.floor(s / 86_400)}d ${Math.floor((s % 86_400) / 3600)}h`;
}

/** An integer with thousands separators; `—` when unknown. */
export function count(n: number | undefined): string {
  return n === undefined || !Number.isFinite(n) ? '—' : Math.round(n).toLocaleString('en-US');
}

/** Bytes as B, KiB, MiB, GiB. */
export function bytes(n: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let v = n;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) {
    v /= 1024;
    u++;
  }
  return `${v.toFixed(u === 0 ? 0 : 1)} ${units[u]}`;
}

/** An ISO time without milliseconds, UTC. */
export function isoTime(ms: number | undefined): string {
  return ms === undefined ? '—' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
