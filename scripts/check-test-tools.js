#!/usr/bin/env node
'use strict';
// Run before `npm test`: the suite drives a real Chromium and a real nginx and talks to a real
// PostgreSQL and Redis. Say in one line how to get whatever is missing, instead of failing deep inside.
const { accessSync, constants } = require('node:fs');
const { connect } = require('node:net');
const { delimiter, join } = require('node:path');

const INSTALL = 'apt-get update && apt-get install -y chromium nginx openssl postgresql redis-server';

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.some((dir) => dir && executable(join(dir, name)));
}

function reachable(url, defaultPort) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port || defaultPort) });
    socket.setTimeout(2000);
    socket.once('connect', () => resolve(true) || socket.destroy());
    socket.once('timeout', () => resolve(false) || socket.destroy());
    socket.once('error', () => resolve(false));
  });
}

async function main() {
  const postgres = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const redis = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
  const missing = [];
  if (!executable(process.env.CHROMIUM_PATH ?? '/usr/bin/chromium')) missing.push('Chromium (/usr/bin/chromium or CHROMIUM_PATH)');
  if (!onPath('nginx')) missing.push('nginx');
  if (!onPath('openssl')) missing.push('openssl');
  if (!(await reachable(postgres, 5432))) missing.push(`PostgreSQL at ${new URL(postgres).host} (TEST_DATABASE_ADMIN_URL)`);
  if (!(await reachable(redis, 6379))) missing.push(`Redis at ${new URL(redis).host} (TEST_REDIS_URL)`);
  if (!missing.length) return;
  process.stderr.write(`npm test needs ${missing.join(', ')}. On Debian or Ubuntu, as root: ${INSTALL} (then start PostgreSQL and Redis)\n`);
  process.exit(1);
}

main();
