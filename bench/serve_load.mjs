// Load test of `gpuecon serve` on loopback (never run by ctest; results in docs/benchmarks.md).
// Usage: node bench/serve_load.mjs GPUECON [CLIENTS=50] [SECONDS=20]
// Starts a server on a free loopback port, then:
//  1. what-if latency: one client, 30 sequential compare requests of one comparison of the
//     built-in scenario with one input changed (what the page sends when a control moves);
//  2. burst: CLIENTS compare requests sent at once (what issue 48 found: 50 gave 46 x 429 when
//     the 4 work slots refused the rest; now the rest wait in the queue);
//  3. load: CLIENTS concurrent clients, each sending compare requests back to back for SECONDS
//     (keep-alive), alternating the built-in scenario's serving and DeepSeek-V3 comparisons;
//  4. the same burst on a second server with --queue-depth 8: what is beyond the queue gets 503
//     with Retry-After.
// The server runs with the default work slots and queue (--max-concurrent 4, --queue-depth 64,
// --queue-wait 10). Prints medians/P99 of latency, requests/s and the count of each non-200 answer.
import {spawn} from 'node:child_process';
import http from 'node:http';
import {createInterface} from 'node:readline';
import os from 'node:os';

const [bin, clientsArg, secondsArg] = process.argv.slice(2);
const CLIENTS = Number(clientsArg || 50), SECONDS = Number(secondsArg || 20);
const start = (...extra) => {
  const p = spawn(bin, ['serve', '--listen', '127.0.0.1:0', '--quiet', '--budget-s', '600', ...extra],
    {stdio: ['ignore', 'pipe', 'inherit']});
  return new Promise((resolve) => {
    createInterface({input: p.stdout}).on('line', (l) => { const m = l.match(/:(\d+)\//); if (m) resolve({p, port: Number(m[1])}); });
  });
};
const {p: server, port} = await start();
const agent = new http.Agent({keepAlive: true, maxSockets: CLIENTS});

function post(body, at = port) {
  return new Promise((resolve) => {
    const t0 = process.hrtime.bigint();
    const req = http.request({host: '127.0.0.1', port: at, path: '/api/v1/compare', method: 'POST', agent,
      headers: {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body)}}, (res) => {
      res.resume();
      res.on('end', () => resolve({status: res.statusCode, retry: res.headers['retry-after'],
        ms: Number(process.hrtime.bigint() - t0) / 1e6}));
    });
    req.on('error', () => resolve({status: 0, ms: Number(process.hrtime.bigint() - t0) / 1e6}));
    req.end(body);
  });
}
const q = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

// the built-in scenario, as the page has it (GET /api/v1/scenario), one comparison at a time
const scen = await new Promise((resolve) => http.get({host: '127.0.0.1', port, path: '/api/v1/scenario', agent}, (res) => {
  let d = ''; res.on('data', (c) => { d += c; }); res.on('end', () => resolve(JSON.parse(d)));
}));
const yamlText = scen.yaml;
// split the YAML at its comparisons (top-level "  - name:" items) without a YAML library
const head = yamlText.slice(0, yamlText.indexOf('comparisons:') + 'comparisons:'.length) + '\n';
const items = yamlText.slice(head.length).split(/\n(?=  - name: )/).filter((s) => s.includes('- name:'));
const pick = (name) => head + items.find((s) => s.includes('name: ' + name)).replace(/\n+$/, '') + '\n';
const deepseek = pick('deepseek-v3-train'), serve = pick('gemma4-31b-serve');
const whatIf = (text, v) => JSON.stringify({command: 'compare', options: {scenario:
  text.replace('        system: gb200-nvl72\n        gpus: 16384\n', `        system: gb200-nvl72\n        gpus: 16384\n        mtbi_gpu_days: ${v}\n`)}});

const lat = [];
for (let i = 0; i < 30; i++) {
  const r = await post(whatIf(deepseek, 900 + 10 * i));
  if (r.status !== 200) console.error('what-if status', r.status);
  lat.push(r.ms);
}
const serveLat = [];
for (let i = 0; i < 30; i++) serveLat.push((await post(JSON.stringify({options: {scenario: serve}}))).ms);
console.log(`what-if (one client, 30 requests): DeepSeek-V3 comparison median ${q(lat, 0.5).toFixed(1)} ms, ` +
  `P90 ${q(lat, 0.9).toFixed(1)} ms; serving comparison median ${q(serveLat, 0.5).toFixed(1)} ms`);

// CLIENTS compare requests at once, each on its own connection; the count of each status
async function burst(at) {
  const a = new http.Agent({keepAlive: false, maxSockets: CLIENTS});
  const rs = await Promise.all(Array.from({length: CLIENTS}, (_, k) => new Promise((resolve) => {
    const body = k % 2 ? whatIf(deepseek, 2000 + k) : JSON.stringify({options: {scenario: serve}});
    const t0 = process.hrtime.bigint();
    const req = http.request({host: '127.0.0.1', port: at, path: '/api/v1/compare', method: 'POST', agent: a,
      headers: {'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body)}}, (res) => {
      res.resume();
      res.on('end', () => resolve({status: res.statusCode, retry: res.headers['retry-after'],
        ms: Number(process.hrtime.bigint() - t0) / 1e6}));
    });
    req.on('error', () => resolve({status: 0, ms: 0}));
    req.end(body);
  })));
  const count = {};
  for (const r of rs) count[r.status + (r.retry ? ` (Retry-After ${r.retry})` : '')] = (count[r.status + (r.retry ? ` (Retry-After ${r.retry})` : '')] || 0) + 1;
  return {count, slowest: Math.max(...rs.map((r) => r.ms))};
}
const b1 = await burst(port);
console.log(`burst: ${CLIENTS} compare requests at once, default slots and queue: ${JSON.stringify(b1.count)}, ` +
  `slowest ${b1.slowest.toFixed(0)} ms`);

const all = [], bad = {};
let n = 0;
const end = Date.now() + SECONDS * 1000;
async function client(k) {
  for (let i = 0; Date.now() < end; i++) {
    const body = (i + k) % 2 ? whatIf(deepseek, 1000 + k) : JSON.stringify({options: {scenario: serve}});
    const r = await post(body);
    n++;
    all.push(r.ms);
    if (r.status !== 200) bad[r.status] = (bad[r.status] || 0) + 1;
  }
}
const t0 = Date.now();
await Promise.all(Array.from({length: CLIENTS}, (_, k) => client(k)));
const wall = (Date.now() - t0) / 1000;
console.log(`load: ${CLIENTS} clients x ${SECONDS} s: ${n} requests, ${(n / wall).toFixed(1)} requests/s, ` +
  `P50 ${q(all, 0.5).toFixed(0)} ms, P99 ${q(all, 0.99).toFixed(0)} ms, non-200: ${JSON.stringify(bad)}`);
const {p: small, port: smallPort} = await start('--queue-depth', '8');
const b2 = await burst(smallPort);
console.log(`burst: ${CLIENTS} compare requests at once, --queue-depth 8: ${JSON.stringify(b2.count)}`);
small.kill('SIGTERM');
console.log(`machine: ${os.cpus()[0].model}, ${os.cpus().length} logical CPUs, load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
agent.destroy();
server.kill('SIGTERM');
