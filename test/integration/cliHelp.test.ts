import { strict as assert } from 'node:assert';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli/commands';
import { packageVersion } from '../../src/version';
import { CLI, childEnv, jsonLine, runNode, type Finished } from '../support/processes';

describe('parley --help and --version (real process)', function () {
  // One process per command (about 1.5 s each on a busy 2-core machine), and the list grows with every command.
  this.timeout(150_000);
  let root: string;
  let run: (args: string[]) => Promise<Finished>;

  // Embedded mode on a DATA_DIR that does not exist yet: loading the settings would create it and write
  // app.key there, and a command would start PostgreSQL in it. cwd is the same empty directory, so any
  // file written anywhere relative shows up too.
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'parley-cli-help-'));
    const env = childEnv({ DATA_DIR: join(root, 'data') }, ['DATABASE_URL', 'APP_KEY', 'REDIS_URL']);
    run = (args) => runNode(CLI, args, { env, cwd: root });
  });
  afterEach(async () => {
    assert.deepEqual(await readdir(root), [], 'nothing was written');
    await rm(root, { recursive: true, force: true });
  });

  function text(finished: Finished): string {
    assert.equal(finished.code, 0, `exit ${finished.code}: ${finished.stdout} ${finished.stderr}`);
    assert.equal(finished.stderr, '');
    assert.ok(!finished.stdout.startsWith('{'), 'text, not JSON');
    return finished.stdout;
  }

  it('parley --help (and -h) lists every command with its flags and what it does', async () => {
    const help = text(await run(['--help']));
    assert.match(help, /^Usage: parley <command>/);
    for (const command of Object.values(COMMANDS)) {
      assert.ok(help.includes(`parley ${command.usage}\n      ${command.summary}\n`), `lists ${command.usage}`);
    }
    assert.match(help, /--password-stdin/);
    assert.match(help, /parley --version/);
    assert.equal(text(await run(['-h'])), help);
  });

  it('parley <command> --help shows that command, every flag with a line on it, and nothing else', async () => {
    for (const [name, command] of Object.entries(COMMANDS)) {
      const help = text(await run([...name.split(' '), '--help']));
      assert.ok(help.startsWith(`Usage: parley ${command.usage}\n\n${command.summary}\n`), `${name}: ${help}`);
      for (const [flag, { help: line }] of Object.entries(command.flags)) assert.ok(help.includes(`--${flag}`) && help.includes(line), `${name} --${flag}`);
      assert.equal(help.includes('--password-stdin'), Boolean(command.password), `${name}: --password-stdin where a password is taken`);
      for (const other of Object.values(COMMANDS)) if (other !== command) assert.ok(!help.includes(other.summary), `${name} shows only itself`);
    }
  });

  it('--help anywhere among the flags wins over them, even flags the command would refuse', async () => {
    const help = text(await run(['user', 'create', '--company', 'nope', '--bogus', '-h']));
    assert.ok(help.startsWith(`Usage: parley ${COMMANDS['user create']!.usage}`));
  });

  it('parley <group> --help lists the commands of that group', async () => {
    const help = text(await run(['user', '--help']));
    const names = Object.keys(COMMANDS).filter((name) => name.startsWith('user '));
    assert.deepEqual(names, ['user create', 'user list', 'user password', 'user revoke-sessions', 'user suspend', 'user update']);
    for (const name of names) assert.ok(help.includes(COMMANDS[name]!.summary), name);
    assert.ok(!help.includes(COMMANDS['workspace create']!.summary));
  });

  it("parley --version prints the package's version", async () => {
    assert.equal(text(await run(['--version'])), `parley ${packageVersion()}\n`);
    assert.match(packageVersion(), /^\d+\.\d+\.\d+/);
  });

  it('an unknown command or a refused flag fails as JSON, and writes nothing either', async () => {
    const unknown = await run(['frobnicate', '--help']);
    assert.equal(unknown.code, 1);
    assert.match(jsonLine(unknown).message as string, /unknown command "frobnicate".*parley --help/i);

    const refused = await run(['user', 'list', '--company', '1', '--bogus']);
    assert.equal(refused.code, 1);
    assert.match(jsonLine(refused).message as string, /bogus/);
    const invalid = await run(['user', 'list', '--company', 'x']);
    assert.equal(invalid.code, 1);
    assert.ok((jsonLine(invalid).errors as Record<string, unknown>).company);
  });
});
