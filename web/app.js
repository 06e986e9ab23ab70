/*
 * app.js — the page of `gpuecon serve`.
 *
 * Key choice: the page computes nothing and formats no result of its own. Every number comes
 * from POST /api/v1/compare (the JSON of `gpuecon compare --json`), and the platform table,
 * charts and provenance are the library's own HTML report (format "html"), inserted as is.
 * The page keeps the scenario as a document (parsed from the editor's YAML with the vendored
 * js-yaml), applies the what-if values to a copy, and sends that copy to the server.
 */
'use strict';

/* The inputs with a what-if control: the scenario field each one writes, and how it is shown.
 * Their human labels come with every compare answer ("labels": the library's one table,
 * gpuecon_input_label, which the HTML report reads too). `from`: a control that starts from
 * another input's value and break-even (the price paid starts from the TCO in force). */
const INPUTS = {
  tokens_per_s_per_gpu: {field: 'measured_tokens_per_s', digits: 4},
  tco_usd_per_gpu_hour: {field: 'tco_usd_per_gpu_hour', digits: 4},
  usd_per_gpu_hour: {field: 'usd_per_gpu_hour', digits: 4, from: 'tco_usd_per_gpu_hour', min: 0.001, max: 1000},
  mtbi_gpu_days: {field: 'mtbi_gpu_days', digits: 4},
  pue: {field: 'pue', digits: 3, min: 1, max: 3},
  electricity_usd_per_kwh: {field: 'electricity_usd_per_kwh', digits: 3, min: 0.001},
  spare_policy: {field: 'spares_do_other_work', bool: true},
};
const STEPS = 1000;

const state = {
  doc: null,          // the scenario as loaded from the editor
  name: 'scenario',
  overrides: new Map(), // "comparison|platform|field" -> value
  base: null,         // compare result of the unedited scenario
  result: null,       // the latest result, comparison by comparison
  sel: 0,
  gen: 0,             // bumped when the overrides are thrown away (reset, a new scenario): answers to
                      // requests sent before that are stale and are dropped
  catalog: {},
  busy: false,
  pending: false,
  labels: {},         // input -> human label, from the compare answer
};
const LABEL = (input) => state.labels[input] || input;

const $ = (id) => document.getElementById(id);
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v);
  }
  for (const k of kids) e.append(k);
  return e;
}
function fmt(v, digits) {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  const d = digits || 4;
  if (Math.abs(v) >= Math.pow(10, d)) return String(Math.round(v));
  let s = Number(v).toPrecision(d);
  if (s.includes('e')) return s;
  if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
  return s;
}
function status(text) { $('status').textContent = text; }

async function api(command, options) {
  const r = await fetch('/api/v1/' + command, {
    method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({command, options}),
  });
  const type = r.headers.get('Content-Type') || '';
  const body = type.startsWith('application/json') ? await r.json() : await r.text();
  return {ok: r.ok, status: r.status, body, retryAfter: Number(r.headers.get('Retry-After')) || 0};
}

/* ---- the scenario document and the what-ifs ---- */

function platformName(p) { return p.name || p.system; }
function key(ci, pname, field) { return ci + '|' + pname + '|' + field; }

function effectiveDoc(only) {
  const d = structuredClone(state.doc);
  d.comparisons.forEach((c, ci) => {
    for (const p of c.platforms || []) {
      for (const [k, v] of state.overrides) {
        const [kc, kp, field] = k.split('|');
        if (Number(kc) !== ci || kp !== platformName(p)) continue;
        if (typeof v === 'object') p[field] = v;
        else if (typeof v === 'number' && !['gpus'].includes(field))
          p[field] = {value: v, source: 'what-if set in gpuecon serve', stage: 'assumption'};
        else p[field] = v;
      }
    }
    for (const [k, v] of state.overrides) {
      const [kc, kp, field] = k.split('|');
      if (Number(kc) !== ci || kp !== '') continue;
      if (field === 'model') c.workload.model = v;
      if (field === 'start_date' && v) c.workload.start_date = v;
      if (field === 'start_date' && !v) delete c.workload.start_date;
      applyServingOverride(c, ci, field, v);
    }
  });
  if (only !== undefined) d.comparisons = [d.comparisons[only]];
  return d;
}

/* ---- the editor ---- */

/* The scenario's YAML editor: CodeMirror 6 (web/vendor/codemirror.min.js, which sets
 * window.GpueconEditor; its line numbers scroll with the text, follow every edit and paste, and
 * an error's path:line:col marks that line), or, only when that bundle did not load, the plain
 * textarea index.html starts with (no line numbers: the error text names the line, and the
 * line is selected). Every other function reads and writes the scenario through these four. */
const editor = {cm: null};
function editorInit() {
  const box = $('editor');
  if (!window.GpueconEditor) { box.classList.add('plain'); return; }
  $('yaml').remove();
  editor.cm = window.GpueconEditor.create(box, '', null);
}
function editorText() { return editor.cm ? editor.cm.get() : $('yaml').value; }
function editorSet(text) { if (editor.cm) editor.cm.set(text); else $('yaml').value = text; }
function editorMark(line, column) {
  if (editor.cm) { editor.cm.mark(line, column); return; }
  if (!(line > 0)) return;
  const ta = $('yaml'), lines = ta.value.split('\n');
  let start = 0;
  for (let i = 0; i < line - 1 && i < lines.length; i++) start += lines[i].length + 1;
  ta.focus();
  ta.setSelectionRange(start + Math.max(0, (column || 1) - 1), start + (lines[line - 1] || '').length);
}
function showYamlError(e) {
  const box = $('yaml-error');
  if (!e) { box.hidden = true; editorMark(0); return; }
  box.hidden = false;
  box.textContent = e.text || e.message;
  editorMark(e.line || 0, e.column || 1);
}

async function runAll() {
  const text = editorText();
  status('running compare…');
  const t0 = performance.now();
  const r = await api('compare', {scenario: text});
  if (!r.ok) {
    status('the scenario did not load');
    showYamlError(r.body.error || {message: String(r.body)});
    return;
  }
  showYamlError(null);
  try {
    state.doc = jsyaml.load(text);
  } catch (e) {
    showYamlError({message: String(e.message), line: e.mark ? e.mark.line + 1 : 0});
    return;
  }
  state.overrides.clear();
  state.gen++;
  state.labels = r.body.labels || {};
  state.base = r.body;
  state.result = structuredClone(r.body);
  if (state.sel >= state.result.comparisons.length) state.sel = 0;
  $('title').textContent = r.body.title || r.body.scenario;
  status(`compare ran in ${Math.round(performance.now() - t0)} ms`);
  render();
  await loadReport();
}

async function loadReport() {
  const gen = state.gen;
  const r = await api('compare', {scenario: effectiveDoc(state.sel), format: 'html'});
  if (!r.ok || gen !== state.gen) return;
  // the report's own <style> would be refused by the page's CSP (style-src 'self'): app.css styles it
  const html = new DOMParser().parseFromString(r.body.replace(/<style>[\s\S]*?<\/style>/g, ''), 'text/html');
  const sec = html.querySelector('section');
  $('report').replaceChildren();
  if (!sec) return;
  for (const x of sec.querySelectorAll('h2, .verdict')) x.remove();
  $('report').append(document.importNode(sec, true));
}

async function whatIf() {
  if (state.busy) { state.pending = true; return; }
  state.busy = true;
  const ci = state.sel, gen = state.gen;
  const t0 = performance.now();
  const [r] = await Promise.all([api('compare', {scenario: effectiveDoc(ci)}), loadReport()]);
  const ms = Math.round(performance.now() - t0);
  state.busy = false;
  if (gen !== state.gen) {
    /* reset or reloaded while this ran: its overrides are gone, so is its answer */
  } else if (r.ok) {
    state.result.comparisons[ci] = r.body.comparisons[0];
    status(`what-if: compare re-ran in ${ms} ms (server ${Math.round(1000 * r.body.elapsed_s)} ms)`);
    render();
  } else if (r.status === 503 && r.retryAfter) { /* the server's queue is full: try again when it says */
    state.pending = true;
    status(`the server is busy: the what-if runs again in ${r.retryAfter} s`);
    await new Promise((res) => setTimeout(res, 1000 * r.retryAfter));
  } else {
    status('what-if refused: ' + ((r.body.error && r.body.error.text) || r.status));
  }
  if (state.pending) { state.pending = false; whatIf(); }
}

/* ---- rendering ---- */

function renderSummary() {
  const tb = $('summary-table').tBodies[0];
  tb.replaceChildren();
  state.result.comparisons.forEach((c, i) => {
    const ratio = (state.result.summary && state.result.summary[i].difference) || 'n/a'; /* "20% below" */
    const tr = el('tr', {class: i === state.sel ? 'sel' : ''},
      el('td', {text: c.title}), el('td', {text: c.cheapest || 'none'}), el('td', {class: 'num', text: ratio}),
      el('td', {text: c.fastest || 'none'}), el('td', {class: 'v', text: c.verdict}));
    tr.addEventListener('click', () => select(i));
    tb.append(tr);
  });
}

function renderTabs() {
  const nav = $('tabs');
  nav.replaceChildren();
  state.result.comparisons.forEach((c, i) => {
    const b = el('button', {type: 'button', class: i === state.sel ? 'active' : '', text: c.name});
    b.addEventListener('click', () => select(i));
    nav.append(b);
  });
}

function renderVerdict() {
  const c = state.result.comparisons[state.sel], base = state.base.comparisons[state.sel];
  const v = $('verdict');
  v.dataset.cheapest = c.cheapest || '';
  v.className = 'verdict' + (base && base.cheapest !== c.cheapest ? ' flipped' : '');
  v.replaceChildren(el('strong', {text: 'Verdict. '}), c.verdict);
  if (base && base.cheapest !== c.cheapest)
    v.append(el('p', {text: `With the what-ifs below, the cheapest platform changes from ${base.cheapest} to ${c.cheapest}.`}));
  if (c.caveats) v.append(el('p', {class: 'muted', text: 'Rests on projections or assumptions: ' + c.caveats}));
}

function sourceText(s) { return s ? `${s.stage}: ${s.source}` : ''; }

function control(ci, c, pname, input, info) {
  const spec = INPUTS[input];
  const k = key(ci, pname, spec.field);
  const div = el('div', {class: 'ctl' + (state.overrides.has(k) ? ' changed' : ''), 'data-platform': pname, 'data-input': input});
  const label = `${pname} ${LABEL(input)}`;
  const stage = info.source ? el('span', {class: 'stage stage-' + info.source.stage, text: info.source.stage}) : '';
  if (spec.bool) { /* checked: spares charged to the job (current 1), i.e. not doing other work */
    const cb = el('input', {type: 'checkbox', 'aria-label': label});
    cb.checked = state.overrides.has(k) ? !state.overrides.get(k) : info.current !== 0;
    cb.addEventListener('change', () => { state.overrides.set(k, !cb.checked); whatIf(); });
    div.append(el('div', {class: 'head'}, el('label', {}, cb, ' ' + label), stage));
    if (info.be) div.append(el('div', {class: 'src', text: info.be.text}));
    return div;
  }
  const today = info.current;
  const now = state.overrides.has(k) ? state.overrides.get(k) : today;
  const pts = [today, now, info.low, info.high, info.be && info.be.found ? info.be.breakeven : null].filter((x) => x > 0 && isFinite(x));
  let lo = Math.min(...pts) / 2, hi = Math.max(...pts) * 2;
  if (spec.min) lo = Math.max(lo, spec.min);
  if (spec.max) hi = Math.min(hi, spec.max);
  const pos = (v) => Math.round(STEPS * Math.log(v / lo) / Math.log(hi / lo));
  const val = (p) => lo * Math.pow(hi / lo, p / STEPS);
  const range = el('input', {type: 'range', min: '0', max: String(STEPS), step: '1', 'aria-label': label});
  range.value = String(pos(now));
  const num = el('input', {type: 'number', step: 'any', 'aria-label': label + ' value'});
  num.value = fmt(now, spec.digits);
  const track = el('div', {class: 'track'}, range);
  const mark = (v, cls, title) => {
    const m = el('div', {class: 'mark ' + cls, title});
    m.style.left = `calc(${(100 * pos(v) / STEPS).toFixed(2)}% - 1px)`;
    track.append(m);
  };
  mark(today, 'today', `today: ${fmt(today, spec.digits)}`);
  if (info.be && info.be.found) mark(info.be.breakeven, 'be', `break-even: ${fmt(info.be.breakeven, spec.digits)}`);
  const set = (v) => { state.overrides.set(k, Number(v.toPrecision(6))); div.classList.add('changed'); whatIf(); };
  range.addEventListener('input', () => { const v = val(Number(range.value)); num.value = fmt(v, spec.digits); set(v); });
  num.addEventListener('change', () => {
    const v = Number(num.value);
    if (!(v > 0)) return;
    range.value = String(pos(Math.min(hi, Math.max(lo, v))));
    set(v);
  });
  div.append(el('div', {class: 'head'}, el('label', {text: label}),
    el('span', {}, num, ' today ', el('b', {text: fmt(today, spec.digits)}), ' ', stage,
      info.be && info.be.found ? el('span', {class: 'be-val', text: ` · break-even ${fmt(info.be.breakeven, spec.digits)}`}) : '')));
  div.append(track);
  div.append(el('div', {class: 'src', text: (info.source ? info.source.source : '') + (info.range ? ` · sensitivity range ${info.range}` : '')}));
  return div;
}

function renderControls() {
  const ci = state.sel, c = state.base.comparisons[ci];
  const box = $('controls');
  box.replaceChildren();
  const dateCtl = dateControl(ci, c);
  if (dateCtl) box.append(dateCtl);
  const serveCtl = servingControls(ci, c);
  if (serveCtl) box.append(serveCtl);
  const docPlatforms = (state.doc.comparisons[ci] || {}).platforms || [];
  for (const p of c.platforms) {
    const dp = docPlatforms.find((x) => platformName(x) === p.name) || {};
    box.append(gpuControl(ci, c, p, dp));
    const tier = tierControl(ci, p, dp);
    if (tier) box.append(tier);
    if (!p.feasible) continue;
    const bands = bandLines(p);
    if (bands) box.append(bands);
    for (const input of Object.keys(INPUTS)) {
      /* a price the scenario gives as usd_per_gpu_hour replaces the TCO: only its own control moves it */
      if (input === 'tco_usd_per_gpu_hour' && dp.usd_per_gpu_hour !== undefined) continue;
      const from = INPUTS[input].from || input;
      const be = c.breakeven.find((b) => b.platform === p.name && b.input === from);
      const se = c.sensitivity.find((s) => s.platform === p.name && s.input === from);
      if (!be && !se) continue;
      const current = be ? be.current : (se.low + se.high) / 2;
      box.append(control(ci, c, p.name, input, {current, be, low: se && se.low, high: se && se.high,
        range: se && se.range, source: (be || se).source}));
    }
  }
}

/* The predicted figures of a platform with their 80% bands, as compare's JSON gives them (a "band"
 * object next to the figures: {"<figure>": {low, high, level, basis, extrapolating}}), one line
 * each: "GB200 NVL72 tokens_per_s_per_gpu 10,337 (8,100–11,200, 80%)", with the basis and the axes
 * the case extrapolates on as small text and as the line's title. Nothing is computed here. */
function bandNum(v) {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  return Math.abs(v) >= 1000 ? Math.round(v).toLocaleString('en-US') : fmt(v, 3);
}
function bandLines(p) {
  const bands = Object.entries(p.band || {});
  if (!bands.length) return null;
  const div = el('div', {class: 'bands', 'data-platform': p.name});
  for (const [figure, b] of bands) {
    const why = b.basis + (b.extrapolating && b.extrapolating.length ? '; extrapolating: ' + b.extrapolating.join(', ') : '');
    const value = p[figure] !== undefined ? bandNum(p[figure]) + ' ' : '';
    div.append(el('div', {class: 'band', 'data-figure': figure, title: why},
      el('b', {text: `${p.name} ${LABEL(figure)}`}),
      ` ${value}(${bandNum(b.low)}–${bandNum(b.high)}, ${Math.round(100 * b.level)}%) `,
      el('span', {class: 'why', text: why})));
  }
  return div;
}

/* The unit a system is deployed in, from the catalog's systems entry: a node's GPUs
 * (gpus_per_node: an HGX server's 8), or the NVLink domain's when it spans nodes (scaleup_gpus:
 * an NVL72 rack's 72, of 4-GPU trays). {gpus, name} for the GPU slider's step and its note
 * (name in the plural); {gpus: 1} for a system the catalog does not list. */
function deployUnit(system) {
  const e = (state.catalog.systems || []).find((x) => x.name === system);
  const f = (k) => (e && e.fields[k] && e.fields[k].value > 0 ? e.fields[k].value : 0);
  const node = f('gpus_per_node'), domain = f('scaleup_gpus');
  if (domain > node) return {gpus: domain, name: `racks (NVLink domains) of ${domain} GPUs`};
  return node ? {gpus: node, name: `nodes of ${node} GPUs`} : {gpus: 1, name: 'GPUs'};
}
const gcd = (a, b) => (b ? gcd(b, a % b) : a);

/* The GPU count of a platform (a decision, not an estimate: the scenario's own number, or the
 * size compare found for the workload's target_days or budget_usd): a log-scale slider from a
 * sixteenth to four times today's count that moves in whole deployable units (deployUnit: nodes,
 * or racks for NVL72) that are also whole multiples of the platform's fixed tp x pp x cp. Today's
 * count stays as the scenario gives it (a mark on the track) until the control moves; a count
 * typed in is taken as written, rounded to a multiple of tp x pp x cp only. */
function gpuControl(ci, c, p, dp) {
  const pn = p.name, k = key(ci, pn, 'gpus'), today = p.gpus;
  const par = (dp.tp || 1) * (dp.pp || 1) * (dp.cp || 1);
  const sk = key(ci, pn, 'system');
  const deploy = deployUnit(state.overrides.has(sk) ? state.overrides.get(sk) : (dp.system || p.system));
  const unit = deploy.gpus / gcd(deploy.gpus, par) * par; /* lcm: whole units and whole layouts */
  const now = state.overrides.has(k) ? state.overrides.get(k) : today;
  const label = `${pn} ${LABEL('gpus')}`;
  const given = dp.gpus !== undefined;
  const stageName = given ? 'user-input' : 'derived';
  const source = given ? `the scenario's platform "${pn}", gpus`
    : `sized by compare for the workload's ${c.kind === 'train' ? 'target_days or budget_usd' : 'demand'}`;
  const div = el('div', {class: 'ctl' + (state.overrides.has(k) ? ' changed' : ''), 'data-platform': pn, 'data-input': 'gpus'});
  const lo = Math.max(unit, Math.floor(today / 16 / unit) * unit);
  const hi = Math.max(lo * 2, Math.ceil(today * 4 / unit) * unit);
  const snap = (v) => Math.max(unit, Math.round(v / unit) * unit);
  const typed = (v) => Math.max(par, Math.round(v / par) * par);
  const pos = (v) => Math.round(STEPS * Math.log(v / lo) / Math.log(hi / lo));
  const range = el('input', {type: 'range', min: '0', max: String(STEPS), step: '1', 'aria-label': label});
  range.value = String(pos(Math.min(hi, Math.max(lo, now))));
  const num = el('input', {type: 'number', min: String(unit), step: String(unit), 'aria-label': label + ' value'});
  num.value = String(now);
  const track = el('div', {class: 'track'}, range);
  const m = el('div', {class: 'mark today', title: `today: ${today}`});
  m.style.left = `calc(${(100 * pos(today) / STEPS).toFixed(2)}% - 1px)`;
  track.append(m);
  const set = (v) => { state.overrides.set(k, v); div.classList.add('changed'); whatIf(); };
  range.addEventListener('input', () => { num.value = String(snap(lo * Math.pow(hi / lo, Number(range.value) / STEPS))); });
  range.addEventListener('change', () => set(Number(num.value)));
  num.addEventListener('change', () => {
    const v = typed(Number(num.value));
    if (!(v >= 1)) return;
    num.value = String(v);
    range.value = String(pos(Math.min(hi, Math.max(lo, v))));
    set(v);
  });
  div.append(el('div', {class: 'head'}, el('label', {text: label}),
    el('span', {}, num, ' today ', el('b', {text: String(today)}), ' ', el('span', {class: 'stage stage-' + stageName, text: stageName}))));
  div.append(track);
  const steps = unit === deploy.gpus ? `whole ${deploy.name}`
    : `${unit} GPUs (whole ${deploy.name}, multiples of tp x pp x cp = ${par})`;
  div.append(el('div', {class: 'src', text: source + (unit > 1 ? ` · the slider steps by ${steps}` : '') +
    (today % unit ? ` · today's ${today} is not a whole number of them` : '')}));
  return div;
}

/* The operator tier of a platform whose runs fail and restart (training): best, typical or poor,
 * each the catalog's reliability entry for the system (MTBI, detection, restart, checkpointing,
 * spares); the entry's MTBI, its stage and source are shown for each choice. */
function tierControl(ci, p, dp) {
  if (!(p.mtbi_gpu_days > 0)) return null;
  const pn = p.name, k = key(ci, pn, 'tier');
  const sk = key(ci, pn, 'system');
  const system = state.overrides.has(sk) ? state.overrides.get(sk) : (dp.system || p.system);
  const today = dp.tier || 'typical';
  const now = state.overrides.has(k) ? state.overrides.get(k) : today;
  const entry = (t) => (state.catalog.reliability || []).find((e) => e.name === `${system}/${t}`);
  const mtbi = (t) => { const e = entry(t); return e && e.fields.mtbi_gpu_days ? e.fields.mtbi_gpu_days : null; };
  const label = `${pn} ${LABEL('tier')}`;
  const div = el('div', {class: 'ctl' + (state.overrides.has(k) ? ' changed' : ''), 'data-platform': pn, 'data-input': 'tier'});
  const group = el('span', {class: 'tiers', role: 'radiogroup', 'aria-label': label});
  for (const t of ['best', 'typical', 'poor']) {
    const f = mtbi(t);
    const rb = el('input', {type: 'radio', name: `tier-${ci}-${pn}`, value: t, 'aria-label': `${label}: ${t}`});
    rb.checked = t === now;
    if (!entry(t)) rb.disabled = true;
    rb.addEventListener('change', () => { if (rb.checked) { state.overrides.set(k, t); div.classList.add('changed'); whatIf(); } });
    group.append(el('label', {}, rb, ` ${t}` + (f ? ` (MTBI ${fmt(f.value, 4)})` : '') + ' '));
  }
  const f = mtbi(now);
  const stage = f ? el('span', {class: 'stage stage-' + f.stage, text: f.stage}) : '';
  div.append(el('div', {class: 'head'}, el('label', {text: label}),
    el('span', {}, ' today ', el('b', {text: today + (dp.tier ? '' : " (the scenario's default)")}), ' ', stage)));
  div.append(group);
  const mk = key(ci, pn, 'mtbi_gpu_days');
  const replaced = dp.mtbi_gpu_days !== undefined || state.overrides.has(mk);
  div.append(el('div', {class: 'src', text: (f ? `${system}/${now} MTBI ${fmt(f.value, 4)} GPU-days: ${f.source}` : `no ${system}/${now} entry in the catalog`) +
    (replaced ? ' · the MTBI set for this platform replaces the tier\'s; the tier still sets detection, restart, checkpoints and spares' : '')}));
  return div;
}

/* The run's start date, for a comparison whose platforms have throughput timelines: a month
 * slider from the first software date to a year after the last, with the break-even date marked;
 * empty is today's software (the latest point that is not a projection). The slider starts no
 * earlier than the latest first point of any platform's timeline that has no measured throughput
 * to fall back on (the scenario refuses a start before it): the series dates are the two ranked
 * platforms' only. */
function timelineStart(p) {
  const tl = p.throughput_timeline;
  if (!tl || p.measured_tokens_per_s !== undefined) return null;
  let pts = Array.isArray(tl) ? tl : null;
  if (!pts) {
    const e = (state.catalog.timelines || []).find((x) => x.name === tl);
    pts = e ? e.points : [];
  }
  const iso = (x) => (x instanceof Date ? x.toISOString() : String(x));
  const d = pts.map((x) => iso(x.date)).filter((x) => /^\d{4}-\d{2}/.test(x)).map(monthIndex);
  return d.length ? Math.min(...d) : null;
}
const monthIndex = (d) => Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1;
const monthText = (i) => `${Math.floor(i / 12)}-${String(i % 12 + 1).padStart(2, '0')}`;
function dateControl(ci, c) {
  const dates = (c.timeline_series || []).map((x) => x.date).filter((d) => /^\d{4}-\d{2}/.test(d || ''));
  if (c.kind !== 'train' || !dates.length) return null;
  const k = key(ci, '', 'start_date');
  const w = (state.doc.comparisons[ci] || {}).workload || {};
  const today = w.start_date ? String(w.start_date).slice(0, 7) : '';
  const now = state.overrides.has(k) ? state.overrides.get(k) : today;
  const starts = ((state.doc.comparisons[ci] || {}).platforms || []).map(timelineStart).filter((x) => x !== null);
  const lo = Math.max(Math.min(...dates.map(monthIndex)), ...starts), hi = Math.max(lo, ...dates.map(monthIndex)) + 12;
  const label = LABEL('start_date');
  const div = el('div', {class: 'ctl' + (state.overrides.has(k) ? ' changed' : ''), 'data-input': 'start_date'});
  const range = el('input', {type: 'range', min: String(lo), max: String(hi), step: '1', 'aria-label': label});
  range.value = String(now ? Math.min(hi, Math.max(lo, monthIndex(now))) : lo);
  const shown = el('b', {text: now || "today's software"});
  const track = el('div', {class: 'track'}, range);
  const mark = (d, cls, title) => {
    const m = el('div', {class: 'mark ' + cls, title});
    m.style.left = `calc(${(100 * (monthIndex(d) - lo) / (hi - lo)).toFixed(2)}% - 1px)`;
    track.append(m);
  };
  if (today) mark(today, 'today', `today: ${today}`);
  if (c.breakeven_date) mark(c.breakeven_date, 'be', `break-even: ${c.breakeven_date}`);
  const set = (v) => { state.overrides.set(k, v); div.classList.add('changed'); shown.textContent = v || "today's software"; whatIf(); };
  range.addEventListener('change', () => set(monthText(Number(range.value))));
  const clear = el('button', {type: 'button', text: "today's software"});
  clear.addEventListener('click', () => set(''));
  div.append(el('div', {class: 'head'}, el('label', {text: label}), el('span', {}, shown, ' ', clear,
    c.breakeven_date ? el('span', {class: 'be-val', text: ` · break-even ${c.breakeven_date}`}) : '')));
  div.append(track);
  div.append(el('div', {class: 'src', text: 'software dates: ' + dates.join(', ') + (c.timeline ? ' · ' + c.timeline : '')}));
  return div;
}

/* ---- serving sizing: rate and latency targets of a serve comparison ---- */

/* The workload fields the serving controls set (docs/scenarios.md): a rate sizes every platform to
 * the fewest servers or racks meeting the targets at slo_percentile (docs/model.md §7.1). */
const SERVING_FIELDS = {
  rate: {label: 'rate, requests/s', min: 0.001, step: 'any'},
  ttft_ms_target: {label: 'TTFT target, ms', min: 0.1, step: 'any'},
  tpot_ms_target: {label: 'TPOT target, ms', min: 0.1, step: 'any'},
  slo_percentile: {label: 'at percentile', min: 0.1, max: 99.9, step: 'any'},
};
/* The platform fields a platform sized at a rate may not fix: the search chooses them. */
const SIZED_OUT = ['gpus', 'tp', 'pp', 'max_num_seqs', 'max_num_batched_tokens', 'long_prefill_token_threshold',
  'prefill_instances', 'prefill_tp', 'decode_instances', 'decode_tp', 'measured_tokens_per_s'];

/* Writes one serving control's value into comparison c of the document sent (effectiveDoc). A rate
 * makes compare size each platform, so the fixed layouts and GPU counts go (a GPU count the slider
 * set after the rate stays: that platform is then searched at it); an empty value removes the
 * field (the percentile too, which needs a rate). */
function applyServingOverride(c, ci, field, v) {
  if (!(field in SERVING_FIELDS)) return;
  const w = c.workload;
  if (v === '' || v === null || v === undefined) {
    delete w[field];
    if (field === 'rate') delete w.slo_percentile;
    return;
  }
  w[field] = v;
  if (field !== 'rate') return;
  delete w.concurrency;
  for (const p of c.platforms || [])
    for (const f of SIZED_OUT)
      if (f !== 'gpus' || !state.overrides.has(key(ci, platformName(p), 'gpus'))) delete p[f];
}

/* Rate, TTFT and TPOT targets and the percentile of a serve comparison, as number inputs that
 * re-run compare (POST /api/v1/compare) on change. The answer's verdict and report say how many
 * GPUs each platform needs; nothing is computed here. */
function servingControls(ci, c) {
  if (c.kind !== 'serve') return null;
  const w = (state.doc.comparisons[ci] || {}).workload || {};
  const div = el('div', {class: 'ctl serving', 'data-input': 'serving'});
  const row = el('span', {class: 'serving-inputs'});
  for (const [field, info] of Object.entries(SERVING_FIELDS)) {
    const k = key(ci, '', field);
    const today = w[field] !== undefined ? w[field] : '';
    const now = state.overrides.has(k) ? state.overrides.get(k) : today;
    const attrs = {type: 'number', min: String(info.min), step: info.step, 'aria-label': info.label, 'data-field': field};
    if (info.max) attrs.max = String(info.max);
    const num = el('input', attrs);
    num.value = now === '' ? '' : String(now);
    if (field === 'slo_percentile' && now === '') num.placeholder = '90';
    num.addEventListener('change', () => {
      const v = num.value === '' ? '' : Number(num.value);
      if (v !== '' && !(v >= info.min && (!info.max || v <= info.max))) {
        status(`${info.label}: ${num.value} is outside ${info.min} to ${info.max || 'any'}`);
        return;
      }
      state.overrides.set(k, v);
      div.classList.add('changed');
      whatIf();
    });
    row.append(el('label', {}, info.label + ' ', num, ' '));
    if (state.overrides.has(k)) div.classList.add('changed');
  }
  const rate = state.overrides.has(key(ci, '', 'rate')) ? state.overrides.get(key(ci, '', 'rate')) : w.rate;
  div.append(el('div', {class: 'head'}, el('label', {text: 'serving: rate and latency targets'})));
  div.append(row);
  div.append(el('div', {class: 'src', text: rate
    ? `at ${rate} requests/s each platform is sized to the fewest servers or racks meeting the targets (layout, engine limits and precisions searched) and ranked by $/Mtok`
    : 'set a rate to size each platform to the fewest servers or racks meeting the targets at it'}));
  return div;
}

function select_(opts, value, label, onchange) {
  const s = el('select', {'aria-label': label});
  for (const o of opts) { const op = el('option', {value: o, text: o}); if (o === value) op.selected = true; s.append(op); }
  s.addEventListener('change', () => onchange(s.value));
  return el('label', {}, label + ' ', s);
}

function renderPickers() {
  const ci = state.sel, d = state.doc.comparisons[ci], box = $('pickers');
  box.replaceChildren();
  const names = (kind) => (state.catalog[kind] || []).map((e) => e.name);
  const ov = (pname, field, dflt) => state.overrides.has(key(ci, pname, field)) ? state.overrides.get(key(ci, pname, field)) : dflt;
  box.append(select_(names('models'), ov('', 'model', d.workload.model), LABEL('model'), (v) => { state.overrides.set(key(ci, '', 'model'), v); whatIf(); }));
  for (const p of d.platforms || []) {
    const pn = platformName(p);
    box.append(select_(names('systems'), ov(pn, 'system', p.system), pn + ' ' + LABEL('system'), (v) => { state.overrides.set(key(ci, pn, 'system'), v); whatIf(); }));
    box.append(select_(names('profiles'), ov(pn, 'profile', p.profile || 'hyperscaler'), pn + ' ' + LABEL('profile'), (v) => { state.overrides.set(key(ci, pn, 'profile'), v); whatIf(); }));
  }
}

function render() {
  renderSummary();
  renderTabs();
  renderVerdict();
  renderPickers();
  renderControls();
}

function select(i) {
  state.sel = i;
  render();
  loadReport();
}

/* ---- export and load ---- */

function download(name, type, text) {
  const a = el('a', {download: name});
  a.href = URL.createObjectURL(new Blob([text], {type}));
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function exportYaml() {
  const d = effectiveDoc();
  const head = `# ${d.name || state.name}: exported from gpuecon serve` +
    (state.overrides.size ? ` with ${state.overrides.size} what-if value(s) (stage: assumption)\n` : '\n');
  download(`${d.name || state.name}.yaml`, 'text/yaml', head + jsyaml.dump(d, {lineWidth: 120}));
}

async function exportAs(format, ext, type) {
  const r = await api('compare', {scenario: effectiveDoc(), format});
  if (r.ok) download(`${state.doc.name || state.name}.${ext}`, type, r.body);
  else status('export failed: ' + ((r.body.error && r.body.error.text) || r.status));
}

async function main() {
  editorInit();
  $('run').addEventListener('click', runAll);
  $('reset').addEventListener('click', () => {
    state.overrides.clear();
    state.gen++;
    state.pending = false;
    state.result = structuredClone(state.base);
    render();
    loadReport();
  });
  $('export-yaml').addEventListener('click', exportYaml);
  $('export-html').addEventListener('click', () => exportAs('html', 'html', 'text/html'));
  $('export-csv').addEventListener('click', () => exportAs('csv', 'csv', 'text/csv'));
  $('load-yaml').addEventListener('change', async (ev) => {
    const f = ev.target.files[0];
    if (!f) return;
    editorSet(await f.text());
    ev.target.value = '';
    await runAll();
  });
  for (const kind of ['models', 'systems', 'profiles', 'reliability', 'timelines']) {
    const r = await fetch('/api/v1/catalog/' + kind);
    if (r.ok) state.catalog[kind] = (await r.json()).entries;
  }
  const s = await (await fetch('/api/v1/scenario')).json();
  state.name = s.name;
  editorSet(s.yaml);
  await runAll();
  document.body.dataset.ready = '1';
}

document.addEventListener('DOMContentLoaded', main);
