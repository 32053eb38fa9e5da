// The dashboard's stylesheet, served as /_ficta/assets/app.css (the CSP allows no inline style): light and
// dark (the system's choice, or the one picked in the page), readable from a narrow window to a laptop.

export const APP_CSS = `
:root{--bg:#f7f7f8;--fg:#17181c;--muted:#5d6170;--card:#fff;--line:#dcdde3;--accent:#2355d8;--ok:#1d7a3a;--warn:#a35a00;--bad:#b3261e;--chip:#eef0f6;--focus:#2355d8;color-scheme:light}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#121317;--fg:#e7e8ee;--muted:#9aa0b2;--card:#1b1d23;--line:#2e313a;--accent:#8fb0ff;--ok:#6fcf8a;--warn:#f0b35a;--bad:#ff8a80;--chip:#262933;--focus:#8fb0ff;color-scheme:dark}}
:root[data-theme=dark]{--bg:#121317;--fg:#e7e8ee;--muted:#9aa0b2;--card:#1b1d23;--line:#2e313a;--accent:#8fb0ff;--ok:#6fcf8a;--warn:#f0b35a;--bad:#ff8a80;--chip:#262933;--focus:#8fb0ff;color-scheme:dark}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:var(--accent)}
:focus-visible{outline:2px solid var(--focus);outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:6px;z-index:9}
header.top{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:10px 20px;background:var(--card);border-bottom:1px solid var(--line)}
header.top .brand{font-weight:700;letter-spacing:.02em}
header.top .brand small{font-weight:400;color:var(--muted);margin-left:6px}
nav ul{display:flex;flex-wrap:wrap;gap:4px;margin:0;padding:0;list-style:none}
nav a{display:block;padding:6px 10px;border-radius:6px;text-decoration:none;color:var(--fg)}
nav a[aria-current=page]{background:var(--chip);font-weight:600}
nav a:hover{background:var(--chip)}
.spacer{flex:1}
main{padding:16px 20px;max-width:1400px;margin:0 auto}
h1{font-size:20px;margin:4px 0 12px}h2{font-size:16px;margin:20px 0 8px}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:12px 14px;margin-bottom:14px}
.empty{border-style:dashed;color:var(--muted);padding:18px}
.empty strong{color:var(--fg)}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.muted{color:var(--muted)}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:12px}
.stat b{display:block;font-size:22px}
.table-wrap{overflow-x:auto}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:6px 8px;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);font-weight:600}
tr.in-flight td{color:var(--muted)}
tr.problem td:first-child{box-shadow:inset 3px 0 var(--bad)}
.chip{display:inline-block;padding:1px 7px;margin:1px 2px 1px 0;border-radius:10px;background:var(--chip);font-size:12px;white-space:nowrap}
.chip.bad{color:var(--bad)}.chip.warn{color:var(--warn)}.chip.ok{color:var(--ok)}
.outcome-ok{color:var(--ok)}.outcome-bad{color:var(--bad)}.outcome-warn{color:var(--warn)}
.toolbar{display:flex;flex-wrap:wrap;gap:8px;align-items:center;margin-bottom:10px}
#filter-text{min-width:min(300px,70vw)}
.lat{display:block;color:var(--muted);font-size:12px}
input,select,button{font:inherit;color:var(--fg);background:var(--card);border:1px solid var(--line);border-radius:6px;padding:5px 9px}
button{cursor:pointer}
button.primary{background:var(--accent);color:var(--card);border-color:var(--accent)}
button[aria-pressed=true]{background:var(--warn);color:var(--card);border-color:var(--warn)}
form.inline{display:inline}
.notice{padding:8px 12px;border-radius:8px;background:var(--chip);margin-bottom:12px}
.notice.bad{color:var(--bad)}
iframe.bench{width:100%;height:900px;border:1px solid var(--line);border-radius:10px;background:#fff}
dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:4px 14px;margin:0}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
@media (max-width:760px){
 main{padding:12px}
 table.stack thead{display:none}
 table.stack tr{display:block;border-bottom:1px solid var(--line);padding:6px 0}
 table.stack td{display:flex;flex-wrap:wrap;gap:4px 8px;border:0;padding:2px 4px}
 table.stack td::before{content:attr(data-label);min-width:88px;color:var(--muted);font-size:12px}
 table.stack td:empty{display:none}
}
`;
