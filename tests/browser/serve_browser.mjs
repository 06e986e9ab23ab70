// The browser test of `gpuecon serve`: playwright-core drives Debian's Chromium (/usr/bin/chromium).
// Usage: node serve_browser.mjs GPUECON_BINARY OUTPUT_DIR
// Checks: the page loads with no console errors; moving GB200 NVL72's MTBI below its break-even
// (the value the server's own compare reports) flips the verdict to H100, and moving it above
// flips it back; the exported YAML carries the what-if and, loaded back, gives the same verdict;
// renting GB200 at twice its TCO (the price-paid control) hands H100 the verdict; the DeepSeek-V3
// series started on May 2025 software favours H100 and on July 2025 software GB200 NVL72;
// the GPU-count control (H100 at half its GPUs: days x 2 x the ETTR ratio, the report's table
// too) and the operator-tier control (GB200 NVL72 poor: the catalog's MTBI, H100 cheapest; best:
// GB200 again), each with today's value, stage and source; the start-date slider of a comparison
// whose third platform's timeline starts later begins at that start, and its lowest month runs;
// a scenario with a bad value on line 8 gets line 8 highlighted in the editor's gutter.
// Each platform's predicted figures show their 80% bands (issue 47).
// Issue 48: the editor is CodeMirror 6 (the wheel scrolls text and line numbers together; after a
// paste every line number still sits beside its line; a server error's line:col marks the right
// line after a paste that moved it); the report's tables stay inside their column at 1,400 px and
// narrower; the GPU slider moves in whole nodes (8 GPUs, HGX H100) and racks (72, GB200 NVL72, also
// for a platform moved to that system by its picker); a what-if answered 503 with Retry-After
// says the server is busy and runs again; without the bundle the page runs on a plain text box.
// A screenshot of each state goes to OUTPUT_DIR (kept by CI as an artefact).
// serve-1400.png and serve-editor-error.png are the pictures of the page in docs/img/ (copy them there to update it).
// Exit 0 pass, 1 fail, 77 skip (no Chromium or no playwright-core: CTest's SKIP_RETURN_CODE).
import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {createInterface} from 'node:readline';

const [bin, outDir] = process.argv.slice(2);
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
if (!existsSync(CHROMIUM)) { console.log(`SKIP: ${CHROMIUM} is not installed`); process.exit(77); }
let chromium;
try { ({chromium} = await import('playwright-core')); } catch {
  console.log('SKIP: playwright-core is not installed (npm ci in tests/browser)'); process.exit(77);
}
mkdirSync(outDir, {recursive: true});

// Waits are generous: under ASan a compare of the built-in scenario takes ~12 s of CPU, more on a
// shared machine. The test checks behaviour, never speed (bench/serve_load.mjs measures that).
const T = Number(process.env.GPUECON_BROWSER_TIMEOUT_MS || 240000);

// Before a control moves, the page has no what-if running or queued: a queued one re-renders the
// controls, and a value filled into the old element would be lost.
let page, original0;
const settle = () => page.waitForFunction(() => !state.busy && !state.pending, null, {timeout: T});

function fail(msg) { console.error('FAIL: ' + msg); process.exitCode = 1; throw new Error(msg); }
function check(cond, msg) { if (!cond) fail(msg); console.log('ok: ' + msg); }

// the work budget is raised: a sanitizer build is ~13x slower than a release one
const server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--quiet', '--budget-s', '900'], {stdio: ['ignore', 'pipe', 'inherit']});
const url = await new Promise((resolve, reject) => {
  const rl = createInterface({input: server.stdout});
  rl.on('line', (l) => { const m = l.match(/(http:\/\/127\.0\.0\.1:\d+\/)/); if (m) resolve(m[1]); });
  server.on('exit', (c) => reject(new Error('server exited ' + c)));
  setTimeout(() => reject(new Error('server did not start in 20 s')), 20000);
});
// The scenario text, set as a whole (the editor's own API: what loading a file does)
const setYaml = (text) => page.evaluate((t) => editorSet(t), text);

// Each line number the editor shows against the text drawn at the same height: a list of
// {n, text, want} for the gutter rows in view, `want` being line n of the scenario as the page
// holds it. Read from the screen (elementFromPoint in the editor's shadow root), not from the
// editor's own line model.
const rowsInView = () => page.evaluate(() => {
  const root = document.getElementById('editor').shadowRoot;
  const lines = editorText().split('\n');
  const sc = root.querySelector('.cm-scroller').getBoundingClientRect();
  const content = root.querySelector('.cm-content').getBoundingClientRect();
  const out = [];
  for (const g of root.querySelectorAll('.cm-lineNumbers .cm-gutterElement')) {
    const b = g.getBoundingClientRect(), n = Number(g.textContent);
    const y = b.top + b.height / 2;
    if (!(n > 0) || y < sc.top + 2 || y > sc.bottom - 2) continue;
    let e = root.elementFromPoint(content.left + 4, y);
    while (e && !(e.classList && e.classList.contains('cm-line'))) e = e.parentElement;
    out.push({n, text: e ? e.textContent : null, want: lines[n - 1]});
  }
  return out;
});
const inSync = (rows) => rows.length >= 10 && rows.every((r) => r.text === r.want);
// CodeMirror draws a change in its next measure cycle (an animation frame), later on a loaded machine:
// the rows once they satisfy ok, or after 10 s what is on the screen then (the check reports it)
async function rowsWhen(ok) {
  let rows = await rowsInView();
  for (let t = 0; !ok(rows) && t < 100; t++) {
    await page.waitForTimeout(100);
    rows = await rowsInView();
  }
  return rows;
}

// Issue 48, the editor: CodeMirror 6 (not the textarea fallback); the wheel scrolls the text and
// its line numbers together; a paste in the middle adds lines and every number still sits beside
// its line; an error the server reports at line:col after a paste marks that line, number and text.
async function editorChecks() {
  check(await page.evaluate(() => editor.cm !== null && !document.getElementById('yaml')) &&
    await page.locator('.cm-editor .cm-lineNumbers').count() === 1, 'the scenario editor is CodeMirror 6 with line numbers');
  const scroller = page.locator('.cm-scroller');
  await scroller.scrollIntoViewIfNeeded();
  const box = await scroller.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const y0 = await page.evaluate(() => window.scrollY);
  await page.mouse.wheel(0, 900);
  await page.waitForFunction(() => document.getElementById('editor').shadowRoot.querySelector('.cm-scroller').scrollTop > 400,
    null, {timeout: 10000});
  const rows = await rowsWhen((r) => inSync(r) && r[0].n > 10);
  check(inSync(rows) && rows[0].n > 10 && await page.evaluate(() => window.scrollY) === y0,
    `the wheel scrolls the text and its line numbers together (rows ${rows[0].n}-${rows[rows.length - 1].n} in view, ` +
    'each beside its line)');
  // a 5-line paste at the start of line 30 (through the clipboard, as a user pastes)
  const before = await page.evaluate(() => editorText().split('\n').length);
  const piece = ['# pasted 1', '# pasted 2', '# pasted 3', '# pasted 4', '# pasted 5', ''].join('\n');
  await page.evaluate((t) => navigator.clipboard.writeText(t), piece);
  await page.evaluate(() => {
    const v = editor.cm.view;
    v.focus();
    v.dispatch({selection: {anchor: v.state.doc.line(30).from}, scrollIntoView: true});
  });
  await page.keyboard.press('Control+V');
  await page.waitForFunction((n) => editorText().split('\n').length === n + 5, before, {timeout: 10000});
  // the pasted lines brought to the middle of the view: where the paste leaves the view depends on
  // whether CodeMirror had measured the scroll to line 30 before the paste landed (on a loaded machine
  // it had not, and the view showed rows 35-73, the paste just above it); what is checked is the
  // numbers beside the lines around an edit, not where the view stops
  await page.evaluate(() => {
    const v = editor.cm.view;
    v.dispatch({effects: v.constructor.scrollIntoView(v.state.doc.line(32).from, {y: 'center'})});
  });
  const after = await rowsWhen((r) => inSync(r) && r.some((x) => x.text === '# pasted 3'));
  const at = await page.evaluate(() => editorText().split('\n').indexOf('# pasted 1') + 1);
  check(at === 30 && inSync(after) && after.some((r) => r.text === '# pasted 3'),
    `after a 5-line paste at line 30 every line number in view sits beside its line ` +
    `(rows ${after[0].n}-${after[after.length - 1].n})`);
  await page.mouse.wheel(0, 1e6);
  const end = await rowsWhen((r) => inSync(r) && r[r.length - 1].n === before + 5);
  check(inSync(end) && end[end.length - 1].n === before + 5, `scrolled to the end, the last line number is ${before + 5}`);
  // a bad scenario pasted over everything, 3 comment lines before the bad value: the server says
  // scenario:11:15, and line 11 is marked
  const bad = ['# three', '# comment', '# lines', 'name: broken', 'comparisons:', '  - name: x',
    '    workload: {kind: train, model: llama3-8b, precision: bf16, tokens: 1e12, seq: 8192, gbs: 512}',
    '    platforms:', '      - system: hgx-h100', '        gpus: 8', '        tp: lots', ''].join('\n');
  await page.evaluate((t) => navigator.clipboard.writeText(t), bad);
  await page.evaluate(() => editor.cm.view.focus());
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Control+V');
  await page.waitForFunction(() => editorText().startsWith('# three'), null, {timeout: 10000});
  await page.click('#run');
  await page.waitForSelector('.cm-gutterElement.err', {timeout: T});
  const err = await page.locator('#yaml-error').textContent();
  const line = Number((err.match(/scenario:(\d+):\d+/) || [])[1]);
  check(line === 11 && await page.locator('.cm-gutterElement.err').textContent() === '11' &&
    await page.locator('.cm-err-line').textContent() === '        tp: lots',
  `the server's ${(err.match(/scenario:\d+:\d+/) || ['no line'])[0]} marks line 11, number and text ("        tp: lots")`);
  await page.screenshot({path: join(outDir, 'serve-editor-error.png')});
  await setYaml(original0);
  await page.click('#run');
  await page.waitForFunction(() => document.querySelector('#yaml-error').hidden && !state.busy, null, {timeout: T});
  await page.waitForSelector('#report svg', {timeout: T});
}

// Issue 48, the layout: at 1,400 px and narrower every table of the report stays inside the
// decision column (a wide one scrolls sideways in it) and none reaches under the scenario panel;
// at 800 px the panel goes below and no table overlaps it either.
async function layoutChecks() {
  for (const width of [1400, 1200, 1000, 800]) {
    await page.setViewportSize({width, height: 1000});
    const r = await page.evaluate(() => {
      const rect = (e) => e.getBoundingClientRect();
      const col = rect(document.getElementById('decision')), pane = rect(document.getElementById('editor-pane'));
      const tables = [...document.querySelectorAll('#decision table')].map((t) => {
        const b = rect(t);
        const overlap = Math.max(0, Math.min(b.right, pane.right) - Math.max(b.left, pane.left)) *
          Math.max(0, Math.min(b.bottom, pane.bottom) - Math.max(b.top, pane.top));
        return {right: b.right, overlap, scrolls: t.scrollWidth > t.clientWidth + 1, x: getComputedStyle(t).overflowX};
      });
      return {col: col.right, pane: pane.left, tables};
    });
    const wide = r.tables.filter((t) => t.scrolls);
    check(r.tables.length >= 2 && r.tables.every((t) => t.right <= r.col + 0.5 && t.overlap === 0) &&
      wide.every((t) => t.x === 'auto'),
    `${width} px: the report's ${r.tables.length} tables end inside their column (right edge ` +
    `${Math.max(...r.tables.map((t) => t.right)).toFixed(0)} <= ${r.col.toFixed(0)}), none under the scenario panel, ` +
    `${wide.length} scroll sideways`);
    if (width === 1400) {
      await page.locator('#report table').first().evaluate((t) => t.scrollIntoView({block: 'center'}));
      await page.screenshot({path: join(outDir, 'serve-1400.png')});
    }
  }
  await page.setViewportSize({width: 1400, height: 1000});
}

// Issue 48, the GPU slider: every position gives a whole number of the system's deployable unit
// (the catalog's hgx-h100 node of 8 GPUs; gb200-nvl72's NVLink rack of 72), and a moved slider
// runs compare at that count.
const slide = (ctl, pos) => page.locator(ctl + ' input[type=range]').evaluate((e, p) => {
  e.value = String(p); e.dispatchEvent(new Event('input'));
}, pos);
async function sliderChecks() {
  for (const [pn, unit] of [['H100', 8], ['GB200 NVL72', 72]]) {
    const ctl = `.ctl[data-platform="${pn}"][data-input="gpus"]`;
    const got = [];
    for (const pos of [0, 1, 137, 333, 500, 618, 731, 999, 1000]) {
      await slide(ctl, pos);
      got.push(Number(await page.locator(ctl + ' input[type=number]').inputValue()));
    }
    check(got.every((g) => g > 0 && g % unit === 0) && new Set(got).size >= 5 &&
      (await page.locator(ctl + ' .src').textContent()).includes(`of ${unit} GPUs`),
    `${pn}: the GPU slider gives whole units of ${unit} GPUs (${got.join(', ')})`);
  }
  await settle();
  const ctl = '.ctl[data-platform="GB200 NVL72"][data-input="gpus"]';
  await slide(ctl, 618);
  const v = Number(await page.locator(ctl + ' input[type=number]').inputValue());
  await page.locator(ctl + ' input[type=range]').dispatchEvent('change');
  await page.waitForFunction((g) => state.result.comparisons[0].platforms.find((p) => p.name === 'GB200 NVL72').gpus === g &&
    !state.busy, v, {timeout: T});
  check(v % 72 === 0, `the slider at ${v} GPUs (${v / 72} racks) runs compare on ${v} GB200 NVL72 GPUs`);
  await page.click('#reset');
  await settle();
  // the platform named H100 moved to the gb200-nvl72 system (the system picker): its slider steps by racks
  await page.selectOption('select[aria-label="H100 ' + await page.evaluate(() => LABEL('system')) + '"]', 'gb200-nvl72');
  await settle();
  const h = '.ctl[data-platform="H100"][data-input="gpus"]';
  const moved = [];
  for (const pos of [137, 500, 731]) {
    await slide(h, pos);
    moved.push(Number(await page.locator(h + ' input[type=number]').inputValue()));
  }
  check(moved.every((g) => g % 72 === 0), `H100 set to the gb200-nvl72 system: its slider steps by racks of 72 (${moved.join(', ')})`);
  await page.click('#reset');
  await settle();
}

// Issue 48, the queue: a what-if the server answers 503 with Retry-After (its queue full) says so
// and runs again once that time has passed (the first compare of the what-if is answered 503 here,
// Retry-After: 1; the report's request goes through)
async function busyChecks() {
  let refused = 0;
  await page.route('**/api/v1/compare', async (route) => {
    if (refused === 0 && !route.request().postData().includes('"format":"html"')) {
      refused++;
      await route.fulfill({status: 503, headers: {'Retry-After': '1', 'Content-Type': 'application/json'},
        body: '{"error": {"status": "canceled", "where": "server", "message": "queue full (test)"}}'});
    } else await route.continue();
  });
  const mt = page.locator('.ctl[data-platform="GB200 NVL72"][data-input="mtbi_gpu_days"] input[type=number]');
  await settle();
  await mt.fill('1900');
  await mt.dispatchEvent('change');
  await page.waitForFunction(() => /the server is busy: the what-if runs again in 1 s/.test(document.getElementById('status').textContent),
    null, {timeout: T});
  const t0 = Date.now();
  await page.waitForFunction(() => /^what-if: compare re-ran/.test(document.getElementById('status').textContent) &&
    state.result.comparisons[0].platforms.find((p) => p.name === 'GB200 NVL72').mtbi_gpu_days === 1900, null, {timeout: T});
  await page.unroute('**/api/v1/compare');
  check(refused === 1, `a what-if answered 503 with Retry-After: 1 says the server is busy and runs again (${Date.now() - t0} ms later)`);
  await page.click('#reset');
  await settle();
}

const profile = mkdtempSync(join(tmpdir(), 'gpuecon-chromium-'));
// a fresh --user-data-dir (playwright passes it from the first argument)
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, headless: true, acceptDownloads: true, viewport: {width: 1400, height: 1000},
  permissions: ['clipboard-read', 'clipboard-write'],
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  page = browser.pages()[0] || await browser.newPage();
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]', {timeout: T});
  await page.waitForSelector('#report svg', {timeout: T});
  check(errors.length === 0, `no console errors on load (${errors.join(' | ')})`);
  original0 = await page.evaluate(() => editorText());
  // issue 47: each platform's predicted figures with their 80% bands, as the compare answer gives
  // them (a "band" object next to the figures), shown beside the platform: "(low–high, 80%)" with
  // the basis in the line's title; on the first comparison whose platforms carry bands (a figure
  // the scenario gives, not predicted, has none)
  const banded = await page.evaluate(() => {
    for (const [i, c] of state.base.comparisons.entries()) {
      const ps = c.platforms.filter((p) => p.feasible && p.band && Object.keys(p.band).length);
      if (ps.length) return {i, name: c.name, ps: ps.map((p) => ({name: p.name, figures: Object.keys(p.band)}))};
    }
    return null;
  });
  check(banded !== null, `a comparison's platforms carry bands (${banded ? banded.name : 'none'})`);
  await page.evaluate((i) => select(i), banded.i);
  for (const p of banded.ps)
    for (const f of p.figures) {
      const line = page.locator(`.bands[data-platform="${p.name}"] .band[data-figure="${f}"]`);
      const text = await line.textContent();
      check(/\([0-9][0-9,.]*–[0-9][0-9,.]*, 80%\)/.test(text) && (await line.getAttribute('title')).length > 0,
        `${banded.name}: ${p.name} ${f} shows its band and basis (${text.trim()})`);
    }
  await page.evaluate(() => select(0));
  await editorChecks();
  await layoutChecks();
  await sliderChecks();
  await busyChecks();
  const original = await page.evaluate(() => editorText());
  const verdict = page.locator('#verdict');
  check(await verdict.getAttribute('data-cheapest') === 'GB200 NVL72', 'DeepSeek-V3: GB200 NVL72 is cheapest today');
  const nComparisons = await page.evaluate(async () =>
    (await (await fetch('/api/v1/compare', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{"options": {"no_sensitivity": true}}'})).json()).comparisons.length);
  check((await page.locator('#summary-table tbody tr').count()) === nComparisons,
    `the summary lists the scenario's ${nComparisons} comparisons`);

  // the break-even MTBI, as the server computes it (not a number copied into this test)
  const be = await page.evaluate(async () => {
    const r = await fetch('/api/v1/compare', {method: 'POST', headers: {'Content-Type': 'application/json'}, body: '{}'});
    const c = (await r.json()).comparisons[0];
    return c.breakeven.find((b) => b.platform === 'GB200 NVL72' && b.input === 'mtbi_gpu_days').breakeven;
  });
  check(be > 100 && be < 2000, `break-even MTBI ${be} GPU-days lies below today's 2000`);
  const mtbi = page.locator('.ctl[data-platform="GB200 NVL72"][data-input="mtbi_gpu_days"] input[type=number]');
  check(await page.locator('.ctl[data-platform="GB200 NVL72"][data-input="mtbi_gpu_days"] .mark.be').count() === 1,
    'the break-even is marked on the MTBI track');
  await settle();
  await mtbi.fill(String(Math.round(be * 0.9)));
  await mtbi.dispatchEvent('change');
  await page.waitForSelector('#verdict[data-cheapest="H100"]', {timeout: T});
  check(true, `MTBI ${Math.round(be * 0.9)} (below break-even) flips the verdict to H100`);
  await page.screenshot({path: join(outDir, 'serve-flipped.png'), fullPage: true});
  await settle();
  await mtbi.fill(String(Math.round(be * 1.1)));
  await mtbi.dispatchEvent('change');
  await page.waitForSelector('#verdict[data-cheapest="GB200 NVL72"]', {timeout: T});
  check(true, `MTBI ${Math.round(be * 1.1)} (above break-even) flips it back to GB200 NVL72`);
  await settle();
  await mtbi.fill(String(Math.round(be * 0.9)));
  await mtbi.dispatchEvent('change');
  await page.waitForSelector('#verdict[data-cheapest="H100"]', {timeout: T});

  // export the edited scenario as YAML and load it back
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('#export-yaml')]);
  const work = mkdtempSync(join(tmpdir(), 'gpuecon-export-'));
  const saved = join(work, 'exported.yaml');
  await dl.saveAs(saved);
  const text = readFileSync(saved, 'utf8');
  check(text.includes(`value: ${Math.round(be * 0.9)}`) && text.includes('what-if set in gpuecon serve'),
    'the exported YAML carries the what-if MTBI with its stage');
  await page.click('#reset');
  await page.waitForSelector('#verdict[data-cheapest="GB200 NVL72"]', {timeout: T});
  await page.setInputFiles('#load-yaml', saved);
  await page.waitForSelector('#verdict[data-cheapest="H100"]', {timeout: T});
  check(true, 'the exported YAML, loaded back, gives the flipped verdict');
  const [dh] = await Promise.all([page.waitForEvent('download'), page.click('#export-html')]);
  const htmlPath = join(work, 'report.html');
  await dh.saveAs(htmlPath);
  check(readFileSync(htmlPath, 'utf8').includes('<svg'), 'the exported HTML report has its charts');

  // the rental price: GB200 NVL72 at twice its TCO, as a price paid (usd_per_gpu_hour), hands H100 the verdict
  await setYaml(original);
  await page.click('#run');
  await page.waitForSelector('#verdict[data-cheapest="GB200 NVL72"]', {timeout: 30000});
  const price = page.locator('.ctl[data-platform="GB200 NVL72"][data-input="usd_per_gpu_hour"] input[type=number]');
  const tco = Number(await page.locator('.ctl[data-platform="GB200 NVL72"][data-input="usd_per_gpu_hour"] .head b').textContent());
  check(tco > 1 && tco < 10, `the price paid starts at the TCO in force ($${tco}/GPU-h)`);
  check((await page.locator('.ctl[data-platform="GB200 NVL72"][data-input="usd_per_gpu_hour"] label').textContent())
    .includes('price paid (rental or negotiated), $/GPU-h'), "the price control carries the library's label");
  await settle();
  await price.fill(String(2 * tco));
  await price.dispatchEvent('change');
  await page.waitForSelector('#verdict[data-cheapest="H100"]', {timeout: 30000});
  check(true, `renting GB200 NVL72 at $${2 * tco}/GPU-h flips the verdict to H100`);

  // a what-if still in flight when Reset is pressed must not bring its answer back: hold the
  // what-if's requests in the browser, press Reset, then let them through; once every request
  // has settled the verdict must still be today's
  await settle();
  let release;
  const gate = new Promise((res) => { release = res; });
  await page.route('**/api/v1/compare', async (route) => { await gate; await route.continue(); });
  await price.fill(String(2 * tco));
  await price.dispatchEvent('change');
  await page.waitForFunction(() => state.busy, null, {timeout: T});
  await page.click('#reset');
  release();
  await settle();
  await page.unroute('**/api/v1/compare');
  check(await page.evaluate(() => document.querySelector('#verdict').dataset.cheapest) === 'GB200 NVL72',
    'Reset during a what-if in flight keeps today\'s verdict (the stale answer is dropped)');

  // the GPU count and the operator tier, each a control with today's value, stage and source
  const plat = (name) => page.evaluate((n) => state.result.comparisons[0].platforms.find((p) => p.name === n), name);
  const shown = (name) => page.evaluate((n) => { // the report's platform table: GPUs and days of one row
    // a wide table is split into parts that repeat the platform column (render/table.c): each
    // figure is read from the part whose header names it
    const cell = (h) => {
      const t = [...document.querySelectorAll('#report table')].find((x) => [...x.querySelectorAll('th')].some((c) => c.textContent === h));
      const hs = [...t.querySelectorAll('th')].map((c) => c.textContent);
      const row = [...t.querySelectorAll('tbody tr')].find((r) => r.cells[0].textContent === n);
      return Number(row.cells[hs.indexOf(h)].textContent.replace(/,/g, ''));
    };
    return {gpus: cell('GPUs'), days: cell('days')};
  }, name);
  const h0 = await plat('H100');
  const gctl = '.ctl[data-platform="H100"][data-input="gpus"]';
  check(h0.gpus === 16384 && Number(await page.locator(gctl + ' .head b').textContent()) === h0.gpus &&
    await page.locator(gctl + ' .stage').textContent() === 'user-input' &&
    (await page.locator(gctl + ' .src').textContent()).includes('"H100", gpus'),
  "the H100 GPU control shows today's 16384, stage user-input, the scenario as its source");
  await settle();
  await page.locator(gctl + ' input[type=number]').fill(String(h0.gpus / 2));
  await page.locator(gctl + ' input[type=number]').dispatchEvent('change');
  await page.waitForFunction((g) => state.result.comparisons[0].platforms.find((p) => p.name === 'H100').gpus === g &&
    !state.busy, h0.gpus / 2, {timeout: T});
  const h1 = await plat('H100');
  // days = tokens / (tokens/s/GPU x GPUs x ETTR x 86,400): half the GPUs at the same measured
  // throughput per GPU, and a higher ETTR (half the interruptions per day)
  const want = h0.days_to_train * 2 * h0.ettr / h1.ettr;
  check(h1.tokens_per_s_per_gpu === h0.tokens_per_s_per_gpu && h1.ettr > h0.ettr &&
    Math.abs(h1.days_to_train / want - 1) < 1e-9 && h1.days_to_train > 1.8 * h0.days_to_train,
  `H100 on 8,192 GPUs: ${h1.days_to_train.toFixed(3)} days = 2 x ${h0.days_to_train.toFixed(3)} x ETTR ${h0.ettr.toFixed(4)}/${h1.ettr.toFixed(4)}`);
  await page.waitForFunction(() => [...document.querySelectorAll('#report td')].some((d) => d.textContent.replace(/,/g, '') === '8192'), null, {timeout: T});
  const row = await shown('H100');
  check(row.gpus === 8192 && Math.abs(row.days / h1.days_to_train - 1) < 0.01, `the report's table shows 8,192 GPUs and ${row.days} days`);

  await page.click('#reset');
  await page.waitForSelector('#verdict[data-cheapest="GB200 NVL72"]', {timeout: T});
  const rel = await page.evaluate(async () => (await (await fetch('/api/v1/catalog/reliability')).json()).entries);
  const tierMtbi = (t) => rel.find((e) => e.name === `gb200-nvl72/${t}`).fields.mtbi_gpu_days.value;
  const g0 = await plat('GB200 NVL72');
  const tctl = '.ctl[data-platform="GB200 NVL72"][data-input="tier"]';
  check(await page.locator(tctl + ' input[type=radio]').count() === 3 &&
    await page.locator(tctl + ' input[value="typical"]').isChecked() && g0.mtbi_gpu_days === tierMtbi('typical') &&
    (await page.locator(tctl + ' .head b').textContent()).startsWith('typical') &&
    (await page.locator(tctl + ' .src').textContent()).includes('gb200-nvl72/typical MTBI'),
  `the GB200 NVL72 tier control: today typical (MTBI ${tierMtbi('typical')} GPU-days), with the entry's stage and source`);
  for (const [t, flip] of [['poor', 'H100'], ['best', 'GB200 NVL72']]) {
    await settle();
    await page.locator(`${tctl} input[value="${t}"]`).check();
    await page.waitForFunction((m) => state.result.comparisons[0].platforms.find((p) => p.name === 'GB200 NVL72').mtbi_gpu_days === m &&
      !state.busy, tierMtbi(t), {timeout: T});
    const g1 = await plat('GB200 NVL72');
    // the same measured throughput and GPUs: days scale as 1/ETTR
    check(Math.abs(g1.days_to_train / (g0.days_to_train * g0.ettr / g1.ettr) - 1) < 1e-9 &&
      (t === 'poor' ? g1.ettr < g0.ettr && g1.effective_usd_per_mtok > g0.effective_usd_per_mtok
        : g1.ettr > g0.ettr && g1.effective_usd_per_mtok < g0.effective_usd_per_mtok),
    `tier ${t}: MTBI ${g1.mtbi_gpu_days} (the catalog's ${t} entry), ETTR ${g0.ettr.toFixed(4)} -> ${g1.ettr.toFixed(4)}, days x ETTR unchanged`);
    await page.waitForSelector(`#verdict[data-cheapest="${flip}"]`, {timeout: T});
    check(true, `tier ${t}: ${flip} is cheapest` + (t === 'poor' ? ' (ETTR falls to ' + g1.ettr.toFixed(2) + ')' : ''));
  }
  await page.screenshot({path: join(outDir, 'serve-tier.png'), fullPage: true});

  // the start date of the DeepSeek-V3 series: May 2025 software, no GB200 advantage; July, a clear one
  await page.click('#reset');
  const ntab = await page.locator('#tabs button').count();
  let tab = -1;
  for (let i = 0; i < ntab; i++)
    if ((await page.locator('#tabs button').nth(i).textContent()) === 'deepseek-v3-timeline') tab = i;
  check(tab >= 0, 'the DeepSeek-V3 timeline comparison has a tab');
  await page.locator('#tabs button').nth(tab).click();
  const date = page.locator('.ctl[data-input="start_date"] input[type=range]');
  check(await date.count() === 1 && await page.locator('.ctl[data-input="start_date"] .mark.be').count() === 1,
    'a start-date control with the break-even date on its track');
  const month = (d) => String(Number(d.slice(0, 4)) * 12 + Number(d.slice(5, 7)) - 1);
  await settle();
  await date.fill(month('2025-05'));
  await date.dispatchEvent('change');
  await page.waitForSelector('#verdict[data-cheapest="H100"]', {timeout: 60000});
  check(true, 'starting on May 2025 software: H100 is cheaper');
  await settle();
  await date.fill(month('2025-07'));
  await date.dispatchEvent('change');
  await page.waitForSelector('#verdict[data-cheapest="GB200 NVL72"]', {timeout: 60000});
  check(true, 'starting on July 2025 software: GB200 NVL72 is cheaper');
  await page.screenshot({path: join(outDir, 'serve-start-date.png'), fullPage: true});

  // the start-date slider of a comparison whose third platform's timeline begins later
  // (2025-09, no measured throughput to fall back on): it starts at 2025-09, and its lowest
  // month is accepted (an earlier one would be refused by the scenario loader)
  const later = ['name: later-timeline', 'comparisons:', '  - name: three-timelines',
    '    workload: {kind: train, model: deepseek-v3, precision: bf16, tokens: 14.8e12, seq: 4096, gbs: 15360}',
    '    platforms:',
    '      - {name: H100, system: hgx-h100, gpus: 16384, throughput_timeline: deepseek-v3-bf16-hgx-h100}',
    '      - {name: GB200 NVL72, system: gb200-nvl72, gpus: 16384, throughput_timeline: deepseek-v3-bf16-gb200-nvl72}',
    '      - name: B200 later', '        system: hgx-b200', '        gpus: 16384', '        throughput_timeline:',
    '          - {date: 2025-09, tokens_per_s_per_gpu: 300, stage: assumption, source: "a platform whose software starts later"}',
    ''].join('\n');
  await setYaml(later);
  await page.click('#run');
  // the new scenario's controls, not the previous tab's (still shown while compare runs)
  await page.waitForFunction(() => state.doc && state.doc.name === 'later-timeline' && !state.busy &&
    document.querySelector('#tabs button') && document.querySelector('#tabs button').textContent === 'three-timelines' &&
    document.querySelector('.ctl[data-input="start_date"] input[type=range]'), null, {timeout: T});
  const lrange = page.locator('.ctl[data-input="start_date"] input[type=range]');
  check(await lrange.getAttribute('min') === month('2025-09'), 'the start-date slider begins at the later timeline\'s 2025-09');
  await settle();
  await lrange.fill(month('2025-05')); // below the minimum: the browser holds it at 2025-09
  await lrange.dispatchEvent('change');
  await page.waitForFunction(() => /^what-if/.test(document.getElementById('status').textContent) && !state.busy, null, {timeout: T});
  const st = await page.locator('#status').textContent();
  check(st.startsWith('what-if: compare re-ran') && await page.locator('.ctl[data-input="start_date"] .head b').textContent() === '2025-09',
    `the slider's lowest month, 2025-09, runs (${st})`);

  // a scenario with a bad value on line 8: the error names it and the gutter highlights it
  const bad = ['name: broken', 'title: "a scenario with one bad value"', 'comparisons:', '  - name: x',
    '    workload: {kind: train, model: llama3-8b, precision: bf16, tokens: 1e12, seq: 8192, gbs: 512}',
    '    platforms:', '      - system: hgx-h100', '        gpus: lots', ''].join('\n');
  await setYaml(bad);
  await page.click('#run');
  await page.waitForSelector('.cm-gutterElement.err', {timeout: T});
  check(await page.locator('.cm-gutterElement.err').textContent() === '8' &&
    await page.locator('.cm-err-line').textContent() === '        gpus: lots', 'the bad line 8 is highlighted, number and text');
  check((await page.locator('#yaml-error').textContent()).includes('scenario:8:15'), 'the error names scenario:8:15');
  await page.screenshot({path: join(outDir, 'serve-yaml-error.png')});
  // besides the refused scenarios (400), the one 503 busyChecks answered
  const rest = errors.filter((e) => !e.includes('status of 400 '));
  check(rest.length === 1 && rest[0].includes('status of 503 '),
    `no console errors besides the refused scenarios and the test's 503 (${errors.join(' | ')})`);

  // the fallback: with the editor's bundle refused, the page works with the plain text box, and
  // a bad line is still named and selected
  const plain = await browser.newPage();
  const plainErrors = [];
  plain.on('pageerror', (e) => plainErrors.push(String(e)));
  await plain.route('**/vendor/codemirror.min.js', (route) => route.abort());
  await plain.goto(url);
  await plain.waitForSelector('body[data-ready="1"]', {timeout: T});
  check(await plain.evaluate(() => editor.cm === null && document.querySelector('#editor.plain textarea#yaml') !== null &&
    document.getElementById('yaml').value.includes('comparisons:')) && plainErrors.length === 0,
  'without the CodeMirror bundle the page runs on the plain text box (no page errors)');
  await plain.fill('#yaml', bad);
  await plain.click('#run');
  await plain.waitForSelector('#yaml-error:not([hidden])', {timeout: T});
  const selected = await plain.evaluate(() => { const t = document.getElementById('yaml'); return t.value.slice(t.selectionStart, t.selectionEnd); });
  check(selected === 'lots', `and a bad value is named and selected there ("${selected}")`);
  await plain.close();
} catch (e) {
  if (!process.exitCode) { console.error('FAIL: ' + (e.stack || e)); process.exitCode = 1; }
} finally {
  await browser.close();
  server.kill('SIGTERM');
  rmSync(profile, {recursive: true, force: true});
}
