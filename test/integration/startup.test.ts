import { strict as assert } from 'node:assert';
import { tmpdir } from 'node:os';
import { TEST_ENV } from '../support/env';
import { CLI, Running, SERVER, childEnv, jsonLine, runNode } from '../support/processes';

/** Settings that must stop a process at start, each with the variable its message has to name. */
const BAD_SETTINGS: Array<{ name: string; what: string; set: Record<string, string>; unset: string[] }> = [
  { name: 'PORT', what: 'PORT=abc', set: { PORT: 'abc' }, unset: [] },
  { name: 'APP_KEY', what: 'DATABASE_URL set but APP_KEY unset', set: {}, unset: ['APP_KEY'] },
  { name: 'REDIS_URL', what: 'REDIS_URL=http://x', set: { REDIS_URL: 'http://x' }, unset: [] },
];

describe('a bad setting stops the process at start, naming the variable', function () {
  this.timeout(30_000);

  for (const bad of BAD_SETTINGS) {
    const env = childEnv({ ...TEST_ENV, LOG_LEVEL: 'info', ...bad.set }, bad.unset);

    it(`server: ${bad.what}`, async () => {
      // cwd outside the project, so no .env file can fill in what the test removed.
      const run = await runNode(SERVER, [], { env, cwd: tmpdir(), timeoutMs: 15_000 });
      assert.notEqual(run.code, 0, `the server should not start\nstdout: ${run.stdout}`);
      assert.equal(run.signal, null);
      assert.match(run.stderr, new RegExp(`\\b${bad.name}\\b`), `stderr names ${bad.name}: ${run.stderr}`);
      assert.match(run.stderr, /Invalid configuration/);
      assert.ok(!run.stdout.includes('"msg":"listening"'), 'it never listened');
    });

    it(`CLI: ${bad.what}`, async () => {
      const run = await runNode(CLI, ['migrate'], { env, cwd: tmpdir(), timeoutMs: 15_000 });
      assert.notEqual(run.code, 0);
      const body = jsonLine(run);
      assert.deepEqual(Object.keys(body), ['message']);
      assert.match(body.message as string, new RegExp(`\\b${bad.name}\\b`));
    });
  }

  it('the same environment with no bad setting does start (control)', async () => {
    const web = new Running(SERVER, [], { env: childEnv({ ...TEST_ENV, PORT: '0', LOG_LEVEL: 'info' }), cwd: tmpdir() });
    try {
      const listening = await web.waitForLog((entry) => entry.msg === 'listening', 15_000);
      assert.equal(listening.embeddedDatabase, false);
    } finally {
      web.child.kill('SIGTERM');
      if (!(await web.exitWithin(15_000))) web.child.kill('SIGKILL');
    }
    const run = await runNode(CLI, ['migrate'], { env: childEnv(TEST_ENV), cwd: tmpdir(), timeoutMs: 15_000 });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(jsonLine(run), { migrated: [] });
  });
});
