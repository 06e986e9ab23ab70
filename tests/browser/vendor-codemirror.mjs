// Regenerates web/vendor/codemirror.min.js and web/vendor/codemirror.LICENSE from the packages
// pinned in package-lock.json (npm ci; npm run vendor): esbuild bundles codemirror-entry.mjs into
// one minified classic script (an IIFE that sets window.GpueconEditor), and the licence file is
// the LICENSE of every package the bundle took code from, with its version, in name order.
// The same lockfile gives the same bytes: with --check nothing is written, and the exit status
// says whether the committed files are those bytes (0; 1 when not; 77 when esbuild is not installed).
import {existsSync, readFileSync, writeFileSync} from 'node:fs';
import {dirname, join} from 'node:path';
import {fileURLToPath} from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const check = process.argv.includes('--check');
let build;
try { ({build} = await import('esbuild')); } catch {
  console.log('SKIP: esbuild is not installed (npm ci in tests/browser)'); process.exit(77);
}
const out = join(here, '../../web/vendor');
const r = await build({
  entryPoints: [join(here, 'codemirror-entry.mjs')], bundle: true, minify: true, format: 'iife',
  target: 'es2020', legalComments: 'none', metafile: true, write: false, charset: 'utf8',
  banner: {js: '/* CodeMirror 6 and its dependencies (MIT), bundled for gpuecon serve by ' +
    'tests/browser/vendor-codemirror.mjs; licences: codemirror.LICENSE */'},
});
const pkgs = new Set();
for (const input of Object.keys(r.metafile.inputs)) {
  const m = input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) pkgs.add(m[1]);
}
let text = 'The licences of the packages bundled into codemirror.min.js (tests/browser/vendor-codemirror.mjs).\n';
for (const p of [...pkgs].sort()) {
  const dir = join(here, 'node_modules', p);
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  text += `\n==== ${p} ${version} ====\n\n` + readFileSync(join(dir, 'LICENSE'), 'utf8').trimEnd() + '\n';
}
const files = {'codemirror.min.js': Buffer.from(r.outputFiles[0].contents), 'codemirror.LICENSE': Buffer.from(text)};
for (const [name, bytes] of Object.entries(files)) {
  const path = join(out, name);
  if (!check) writeFileSync(path, bytes);
  else if (!existsSync(path) || !readFileSync(path).equals(bytes)) {
    console.error(`FAIL: web/vendor/${name} is not what npm run vendor makes from the lockfile (run it and commit)`);
    process.exitCode = 1;
  } else console.log(`ok: web/vendor/${name} is what npm run vendor makes`);
}
console.log(`codemirror.min.js: ${files['codemirror.min.js'].length} bytes from ${pkgs.size} packages`);
