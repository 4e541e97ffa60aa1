#!/usr/bin/env node
'use strict';
// `npm start`: in a checkout, build first (the compiler is a dev dependency), then run the web process.
// A production install that omitted dev dependencies has no compiler: it runs the build it was given.
const { execFileSync, execSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const server = join(root, 'dist', 'src', 'server.js');

function compilerInstalled() {
  try {
    require.resolve('typescript/package.json', { paths: [root] });
    return true;
  } catch {
    return false;
  }
}

if (compilerInstalled()) {
  const npm = process.env.npm_execpath;
  if (npm) execFileSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
  else execSync('npm run build --silent', { cwd: root, stdio: 'inherit' });
} else if (!existsSync(server)) {
  process.stderr.write('parley: dist/ is missing and TypeScript is not installed. Build with dev dependencies first: `npm ci && npm run build` (then `npm prune --omit=dev` if you like).\n');
  process.exit(1);
}
require(server);
