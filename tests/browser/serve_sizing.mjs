// The browser test of the page's serving controls (web/app.js servingControls): playwright-core
// drives Debian's Chromium, as serve_browser.mjs does.
// Usage: node serve_sizing.mjs GPUECON_BINARY OUTPUT_DIR
// Checks: the built-in serving comparison (gemma4-31b-serve) shows rate, TTFT, TPOT and percentile
// inputs; setting a rate of 200 requests/s with TTFT 1000 ms and TPOT 50 ms re-runs compare on the
// server, which sizes every platform to whole 8-GPU servers (each platform's GPUs = units x 8, as
// the answer's sizing says) and names in the verdict the GPUs the cheapest needs at that rate; a
// percentile of 100 is refused on the page (the scenario allows (0, 100)) and sends nothing.
// Exit 0 pass, 1 fail, 77 skip (no Chromium or no playwright-core).
import {spawn} from 'node:child_process';
import {existsSync, mkdirSync, mkdtempSync, rmSync} from 'node:fs';
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
const T = Number(process.env.GPUECON_BROWSER_TIMEOUT_MS || 240000);
let page;
const settle = () => page.waitForFunction(() => !state.busy && !state.pending, null, {timeout: T});
function fail(msg) { console.error('FAIL: ' + msg); process.exitCode = 1; throw new Error(msg); }
function check(cond, msg) { if (!cond) fail(msg); console.log('ok: ' + msg); }

const server = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--quiet', '--budget-s', '900'], {stdio: ['ignore', 'pipe', 'inherit']});
const url = await new Promise((resolve, reject) => {
  const rl = createInterface({input: server.stdout});
  rl.on('line', (l) => { const m = l.match(/(http:\/\/127\.0\.0\.1:\d+\/)/); if (m) resolve(m[1]); });
  server.on('exit', (c) => reject(new Error('server exited ' + c)));
  setTimeout(() => reject(new Error('server did not start in 20 s')), 20000);
});
const profile = mkdtempSync(join(tmpdir(), 'gpuecon-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM, headless: true, viewport: {width: 1400, height: 1000},
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
  const ci = await page.evaluate(() => state.base.comparisons.findIndex((c) => c.kind === 'serve'));
  check(ci >= 0, 'the built-in scenario has a serving comparison');
  await page.evaluate((i) => select(i), ci);
  const box = '.ctl[data-input="serving"]';
  await page.waitForSelector(box, {timeout: T});
  for (const f of ['rate', 'ttft_ms_target', 'tpot_ms_target', 'slo_percentile'])
    check(await page.locator(`${box} input[data-field="${f}"]`).count() === 1, `the serving tab has a ${f} input`);
  const set = async (f, v) => {
    await settle();
    const inp = page.locator(`${box} input[data-field="${f}"]`);
    await inp.fill(String(v));
    await inp.dispatchEvent('change');
  };
  await set('ttft_ms_target', 1000);
  await set('tpot_ms_target', 50);
  await set('rate', 200);
  await page.waitForFunction((i) => !state.busy && !state.pending &&
    (state.result.comparisons[i].platforms || []).every((p) => p.sizing), ci, {timeout: T});
  const c = await page.evaluate((i) => state.result.comparisons[i], ci);
  for (const p of c.platforms)
    check(!p.feasible || (p.sizing.unit === 'server' && p.sizing.units * 8 === p.gpus),
      `${p.name}: sized to whole 8-GPU servers (${p.gpus} GPUs = ${p.sizing.units} x 8)`);
  check(c.platforms.some((p) => p.feasible && p.sizing.units > 1), 'at 200 requests/s some platform needs more than one server');
  const cheapest = c.platforms.find((p) => p.name === c.cheapest);
  check(cheapest && new RegExp(`At 200 requests/s ${c.cheapest} needs ${cheapest.gpus} GPUs`).test(
    await page.locator('#verdict').textContent()), `the verdict names the GPUs ${c.cheapest} needs at 200 requests/s`);
  await page.screenshot({path: join(outDir, 'serve-sizing.png'), fullPage: true});
  // a percentile of 100 is refused on the page and not sent
  await settle();
  const before = await page.evaluate(() => state.overrides.size);
  await set('slo_percentile', 100);
  check(await page.evaluate(() => state.overrides.size) === before &&
    /outside/.test(await page.locator('#status').textContent()), 'a percentile of 100 is refused on the page');
  check(errors.length === 0, `no console errors (${errors.join(' | ')})`);
} catch (e) {
  if (!process.exitCode) { console.error('FAIL: ' + (e.stack || e)); process.exitCode = 1; }
} finally {
  await browser.close();
  server.kill('SIGTERM');
  rmSync(profile, {recursive: true, force: true});
}
