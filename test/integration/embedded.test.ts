import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../../src/models/migrations';
import { request } from '../support/http';
import { CLI, Running, SERVER, childEnv, jsonLine, objectWithKeys, runNode } from '../support/processes';

/** Live processes whose command line mentions `dir` (the embedded postgres runs as `postgres -D <dir>/pg`). */
function processesUsing(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(join(dir, 'pg'))) pids.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return pids;
}

describe('embedded mode (no DATABASE_URL, REDIS_URL or APP_KEY): real server and CLI processes', function () {
  this.timeout(120_000);

  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let web: Running | undefined;
  let baseUrl: string;
  let apiToken: string;
  let workspaceId: number;

  async function start(): Promise<Running> {
    const started = new Running(SERVER, [], { env, cwd: dataDir });
    web = started;
    const listening = await started.waitForLog((entry) => entry.msg === 'listening', 90_000);
    assert.equal(listening.embeddedDatabase, true);
    assert.equal(listening.mode, 'single-node');
    assert.ok(Number.isInteger(listening.port) && (listening.port as number) > 0, `port: ${JSON.stringify(listening)}`);
    baseUrl = `http://127.0.0.1:${listening.port as number}`;
    return started;
  }

  async function stopWithSigterm(running: Running): Promise<void> {
    assert.ok(running.child.kill('SIGTERM'));
    const exit = await running.exitWithin(20_000);
    assert.ok(exit, 'the server exits within 20 s of SIGTERM');
    assert.deepEqual(exit, { code: 0, signal: null }, `exit after SIGTERM\nstderr:\n${running.stderr}`);
    assert.equal(existsSync(join(dataDir, 'pg', 'postmaster.pid')), false, 'postgres removed its postmaster.pid');
    assert.deepEqual(processesUsing(dataDir), [], 'no postgres process left on the data directory');
  }

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'parley-embedded-'));
    env = childEnv({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' }, ['DATABASE_URL', 'REDIS_URL', 'APP_KEY', 'APP_URL', 'REDIS_PREFIX']);
    await start();
  });

  after(async () => {
    if (!dataDir) return;
    if (web?.running) {
      web.child.kill('SIGTERM');
      if (!(await web.exitWithin(20_000))) {
        web.child.kill('SIGKILL');
        await web.exited;
      }
    }
    // A postgres orphaned by a failed run belongs to this test: end it by its pid before removing its files.
    for (const pid of processesUsing(dataDir)) {
      try {
        process.kill(pid, 'SIGINT');
      } catch {
        // already gone
      }
    }
    for (let i = 0; i < 50 && processesUsing(dataDir).length; i++) await new Promise((wake) => setTimeout(wake, 200));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('answers /readyz with the embedded database ready', async () => {
    const ready = await request('GET', '/readyz', { baseUrl });
    assert.equal(ready.status, 200);
    assert.equal(ready.body.status, 'ready');
    assert.deepEqual(ready.body.checks, { database: 'ok', lock: 'ok', cluster: 'ok', shards: 'ok' });
  });

  it('refuses a second server on the same DATA_DIR, naming REDIS_URL, and the first keeps serving', async () => {
    const second = await runNode(SERVER, [], { env, cwd: dataDir, timeoutMs: 60_000 });
    assert.notEqual(second.code, 0, `the second server should not start\nstdout: ${second.stdout}`);
    assert.match(second.stderr, /\bREDIS_URL\b/);
    assert.doesNotMatch(second.stderr, /^\s+at /m, 'a message, not a stack trace');
    assert.ok(web?.running, 'the first server still runs');
    assert.equal((await request('GET', '/readyz', { baseUrl })).status, 200);
  });

  let demoSignIn: { email: string; password: string } | undefined;
  /** The start log's `demo:` line names an email and a password for the web inbox. */
  async function demoLine(running: Running): Promise<{ email: string; password: string }> {
    const line = await running.waitForLog((entry) => typeof entry.msg === 'string' && entry.msg.startsWith('demo:'), 5_000);
    const [, email, password] = /signed in as (\S+) with password (\S+) /.exec(line.msg as string) ?? [];
    assert.ok(email && password, `no sign-in in ${String(line.msg)}`);
    return { email, password };
  }

  it('prints a sign-in for the demo agent in its start log, with a random password that works', async () => {
    demoSignIn = await demoLine(web!);
    assert.equal(demoSignIn.email, 'agent@parley-demo.test');
    assert.match(demoSignIn.password, /^[\w-]{16,}$/);
    const login = await request('POST', '/api/agent/login', { baseUrl, body: { ...demoSignIn, device_name: 'Embedded test' } });
    assert.equal(login.status, 200);
  });

  it('lets the CLI seed the demo through the running embedded postgres, and its token works', async () => {
    const run = await runNode(CLI, ['seed', 'demo'], { env, cwd: dataDir, timeoutMs: 60_000 });
    assert.equal(run.code, 0, `seed demo exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    const body = jsonLine(run);
    const workspace = objectWithKeys(body.workspace, ['id', 'name', 'slug', 'plan'], 'workspace');
    assert.equal(typeof body.api_token, 'string');
    apiToken = body.api_token as string;
    workspaceId = workspace.id as number;

    const me = await request('GET', '/api/v1/me', { baseUrl, token: apiToken });
    assert.equal(me.status, 200);
    assert.deepEqual(me.body.company, workspace);
    assert.equal(me.body.user.email, 'owner@parley-demo.test');
    const agent = (body.users as Array<{ email: string; password: string }>).find((u) => u.email === demoSignIn?.email);
    assert.equal(agent?.password, demoSignIn?.password, 'seed demo prints the password the start log printed');
  });

  it('generated APP_KEY into DATA_DIR/app.key, readable only by its owner', async () => {
    const info = await stat(join(dataDir, 'app.key'));
    assert.ok(info.isFile());
    assert.equal(info.mode & 0o777, 0o600);
    assert.match(readFileSync(join(dataDir, 'app.key'), 'utf8').trim(), /^base64:[A-Za-z0-9+/]{43}=$/);
  });

  it('exits 0 on SIGTERM within 20 s and stops its postgres', async () => {
    assert.ok(existsSync(join(dataDir, 'pg', 'postmaster.pid')), 'postgres is running before the stop');
    assert.equal(processesUsing(dataDir).length > 0, true, 'a postgres process runs on the data directory');
    await stopWithSigterm(web!);
    assert.ok(web!.lines.some((line) => line.includes('"msg":"stopped"')), 'the server logged its graceful stop');
  });

  it('starts again on the same DATA_DIR with the data and key kept (the earlier token still works)', async () => {
    const restarted = await start();
    const me = await request('GET', '/api/v1/me', { baseUrl, token: apiToken });
    assert.equal(me.status, 200);
    assert.equal(me.body.company.id, workspaceId);
    assert.ok(!restarted.lines.some((line) => line.includes('first start')), 'no second initdb');
    assert.deepEqual(await demoLine(restarted), demoSignIn, 'the same demo password after a restart');
    await stopWithSigterm(restarted);
  });
});

describe('embedded mode with APP_KEY set and DATA_DIR not yet created', function () {
  this.timeout(120_000);
  let root: string;

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'parley-embedded-key-'));
  });
  after(async () => {
    for (const pid of processesUsing(join(root, 'nested', 'data'))) process.kill(pid, 'SIGINT');
    for (let i = 0; i < 50 && processesUsing(join(root, 'nested', 'data')).length; i++) await new Promise((wake) => setTimeout(wake, 200));
    await rm(root, { recursive: true, force: true });
  });

  it('refuses, naming DATA_DIR, when the postgres user cannot traverse a parent directory', async () => {
    const dataDir = join(root, 'nested', 'data'); // root came from mkdtemp: mode 0700
    const env = childEnv({ DATA_DIR: dataDir, APP_KEY: 'k'.repeat(40) }, ['DATABASE_URL', 'REDIS_URL']);
    const run = await runNode(CLI, ['migrate'], { env, cwd: root, timeoutMs: 30_000 });
    assert.equal(run.code, 1);
    assert.match(jsonLine(run).message as string, new RegExp(`cannot reach DATA_DIR=${dataDir} because ${root} is not traversable`));
    assert.deepEqual(processesUsing(dataDir), []);
  });

  it('creates DATA_DIR reachable by the postgres user, migrates, and stops its postgres afterwards', async () => {
    await chmod(root, 0o711);
    const dataDir = join(root, 'nested', 'data');
    const env = childEnv({ DATA_DIR: dataDir, APP_KEY: 'k'.repeat(40) }, ['DATABASE_URL', 'REDIS_URL']);
    const run = await runNode(CLI, ['migrate'], { env, cwd: root, timeoutMs: 90_000 });
    assert.equal(run.code, 0, `migrate exited ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
    assert.deepEqual(jsonLine(run), { migrated: migrations.map((migration) => migration.name) });
    assert.equal((await stat(dataDir)).mode & 0o777, 0o711);
    assert.equal(existsSync(join(dataDir, 'app.key')), false, 'a given APP_KEY is not replaced by a generated one');
    assert.deepEqual(processesUsing(dataDir), [], 'the CLI stopped the postgres it started');
  });
});
