// The dashboard's only script, served as /_ficta/assets/app.js (the CSP allows no inline script): the theme
// switch, and on the Live page the server-sent events, filters and pause. Rows are built with textContent
// only. Hand-written, no build step; plain ES2020 that any current browser runs as it is.

export const APP_JS = `'use strict';
(function () {
  var root = document.documentElement;
  var saved = null;
  try { saved = localStorage.getItem('ficta-theme'); } catch (e) {}
  if (saved === 'light' || saved === 'dark') root.setAttribute('data-theme', saved);
  var toggle = document.getElementById('theme');
  function currentTheme() {
    var t = root.getAttribute('data-theme');
    if (t) return t;
    return window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  function labelTheme() { if (toggle) toggle.textContent = currentTheme() === 'dark' ? 'Light theme' : 'Dark theme'; }
  if (toggle) {
    toggle.hidden = false;
    labelTheme();
    toggle.addEventListener('click', function () {
      var next = currentTheme() === 'dark' ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { localStorage.setItem('ficta-theme', next); } catch (e) {}
      labelTheme();
    });
  }

  var live = document.getElementById('live');
  if (!live) return;
  var body = live.querySelector('tbody');
  var empty = document.getElementById('live-empty');
  var status = document.getElementById('live-status');
  var filterText = document.getElementById('filter-text');
  var filterOutcome = document.getElementById('filter-outcome');
  var pause = document.getElementById('pause');
  var MAX_ROWS = 1000;
  var rows = {};
  var order = [];
  var paused = false;
  var held = [];
  var heldIds = {};
  var heldCount = 0;
  var lastSeq = 0;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  function chip(text, cls) { return el('span', 'chip' + (cls ? ' ' + cls : ''), text); }
  function two(n) { return (n < 10 ? '0' : '') + n; }
  function clock(ms) { var d = new Date(ms); return two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds()); }
  function ms(n) { return n === undefined || n === null ? '' : (n < 10 ? n.toFixed(1) : Math.round(n)) + ' ms'; }
  var PROBLEMS = { blocked: 1, egress_refused: 1, upstream_unreachable: 1, upstream_timeout: 1, upstream_stream_error: 1, stream_overflow: 1, vault_unavailable: 1, internal_error: 1 };
  function outcomeClass(r) {
    if (r.state === 'in-flight') return '';
    if (PROBLEMS[r.outcome]) return 'outcome-bad';
    if (r.outcome !== 'ok') return 'outcome-warn';
    return 'outcome-ok';
  }
  function isProblem(r) { return r.state === 'done' && (PROBLEMS[r.outcome] || r.withheld.length > 0 || r.blocked.length > 0); }
  function cell(label, content) {
    var td = el('td');
    td.setAttribute('data-label', label);
    if (content instanceof Node) td.appendChild(content);
    else if (Array.isArray(content)) content.forEach(function (c) { td.appendChild(c); });
    else if (content !== undefined && content !== null && content !== '') td.textContent = String(content);
    return td;
  }
  function render(r) {
    var tr = el('tr', r.state === 'in-flight' ? 'in-flight' : (isProblem(r) ? 'problem' : ''));
    tr.dataset.id = r.id;
    tr.dataset.outcome = r.state === 'in-flight' ? 'in-flight' : r.outcome;
    tr.dataset.problem = isProblem(r) ? '1' : '0';
    tr.dataset.withheld = r.withheld.length > 0 ? '1' : '0';
    tr.dataset.search = [r.client, r.provider, r.method, r.route, r.outcome || '', r.status || '']
      .concat(r.redactions.map(function (x) { return x[0]; }), r.detections.map(function (x) { return x[0]; }), r.blocked,
        r.withheld.map(function (w) { return w.secret + ' ' + w.reason; })).join(' ').toLowerCase();
    tr.appendChild(cell('Time', clock(r.at)));
    tr.appendChild(cell('Client', r.client));
    tr.appendChild(cell('Request', [el('span', 'mono', r.method + ' '), el('span', 'mono', r.route), el('div', 'muted', r.provider)]));
    tr.appendChild(cell('Status', r.state === 'in-flight' ? 'in flight…' : (r.status === undefined ? '' : r.status)));
    tr.appendChild(cell('Outcome', r.state === 'in-flight' ? el('span', 'muted', 'streaming') : el('span', outcomeClass(r), r.outcome)));
    tr.appendChild(cell('Redacted', r.redactions.map(function (x) { return chip(x[0] + ' ×' + x[1]); })));
    tr.appendChild(cell('Detected', r.detections.map(function (x) { return chip(x[0] + ' ×' + x[1], 'warn'); })));
    tr.appendChild(cell('Restored', r.restores > 0 ? r.restores + (r.restoreMisses > 0 ? ' (' + r.restoreMisses + ' missed)' : '') : ''));
    tr.appendChild(cell('Withheld', r.withheld.map(function (w) { return chip(w.secret + ' → ' + (w.host || w.reason) + (w.count > 1 ? ' ×' + w.count : ''), 'bad'); })));
    tr.appendChild(cell('Blocked', r.blocked.map(function (b) { return chip(b, 'bad'); })));
    var lat = [];
    if (r.state !== 'in-flight') {
      lat.push(el('span', '', ms(r.ms)));
      if (r.beforeUpstreamMs !== undefined) {
        var before = el('span', 'lat', 'in ficta ' + ms(r.beforeUpstreamMs));
        before.title = 'Time in ficta before the request went upstream: reading, redacting and gating it';
        lat.push(before);
      }
    }
    tr.appendChild(cell('Latency', lat));
    return tr;
  }
  function visible(tr) {
    var q = filterText ? filterText.value.trim().toLowerCase() : '';
    var o = filterOutcome ? filterOutcome.value : 'all';
    if (q && tr.dataset.search.indexOf(q) === -1) return false;
    if (o === 'problems') return tr.dataset.problem === '1';
    if (o === 'withheld') return tr.dataset.withheld === '1';
    if (o === 'in-flight') return tr.dataset.outcome === 'in-flight';
    if (o !== 'all') return tr.dataset.outcome === o;
    return true;
  }
  function refresh() {
    var shown = 0;
    for (var i = 0; i < order.length; i++) {
      var tr = rows[order[i]];
      var v = visible(tr);
      tr.hidden = !v;
      if (v) shown++;
    }
    if (empty) empty.hidden = order.length > 0;
    live.hidden = order.length === 0;
    if (status) status.textContent = (paused ? 'Paused: ' + heldCount + ' new held back. ' : '') + shown + ' of ' + order.length + ' requests shown';
  }
  function apply(r) {
    var tr = render(r);
    var old = rows[r.id];
    if (old) {
      old.replaceWith(tr);
    } else {
      body.insertBefore(tr, body.firstChild);
      order.push(r.id);
      if (order.length > MAX_ROWS) { var gone = order.shift(); rows[gone].remove(); delete rows[gone]; }
    }
    rows[r.id] = tr;
    tr.hidden = !visible(tr);
  }
  function take(e) {
    var r = JSON.parse(e.data);
    if (e.lastEventId) lastSeq = Number(e.lastEventId);
    if (paused) {
      held.push(r);
      if (!rows[r.id] && !heldIds[r.id]) { heldIds[r.id] = 1; heldCount++; }
      refresh();
      return;
    }
    apply(r);
    refresh();
  }
  var source = null;
  function connect() {
    source = new EventSource('/_ficta/events?since=' + lastSeq);
    source.addEventListener('request', take);
    source.addEventListener('open', function () { live.setAttribute('aria-busy', 'false'); });
    source.addEventListener('error', function () {
      if (status) status.textContent = 'Connection to ficta lost; retrying…';
    });
  }
  if (filterText) filterText.addEventListener('input', refresh);
  if (filterOutcome) filterOutcome.addEventListener('change', refresh);
  function setPaused(p) {
    paused = p;
    if (pause) { pause.setAttribute('aria-pressed', p ? 'true' : 'false'); pause.textContent = p ? 'Resume' : 'Pause'; }
    if (!p) { held.forEach(apply); held = []; heldIds = {}; heldCount = 0; }
    refresh();
  }
  if (pause) pause.addEventListener('click', function () { setPaused(!paused); });
  document.addEventListener('keydown', function (e) {
    var t = e.target;
    if (t && (t.tagName === 'INPUT' || t.tagName === 'SELECT' || t.tagName === 'TEXTAREA')) {
      if (e.key === 'Escape' && t === filterText) { filterText.value = ''; refresh(); filterText.blur(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === '/') { e.preventDefault(); if (filterText) filterText.focus(); }
    else if (e.key === 'p') { setPaused(!paused); }
  });
  refresh();
  connect();
})();
`;
