import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { User } from '../../src/models';
import { verifyPassword } from '../../src/security/passwords';
import { TEST_ENV } from '../support/env';
import { get } from '../support/http';
import { portalLogin } from '../support/portal';
import * as factories from '../support/factories';
import { childEnv, cliFails, cliOk, errorsOf, objectWithKeys } from '../support/processes';
import { TerminalCli } from '../support/terminal';

const unique = () => randomBytes(4).toString('hex');
const email = () => `pw-${unique()}@example.test`;
const USER_KEYS = ['id', 'name', 'email', 'role'];
const CURRENT_PARAMS = /^scrypt\$16384\$8\$5\$/;

/** The JSON line a command printed on its terminal, among the prompts. */
function printedOn(screen: string): Record<string, unknown> {
  const line = screen.split(/\r?\n/).find((text) => text.startsWith('{'));
  assert.ok(line, `no JSON on the terminal: ${JSON.stringify(screen)}`);
  return JSON.parse(line) as Record<string, unknown>;
}

describe('parley passwords: --password-stdin, the terminal prompt, user password (real process)', function () {
  this.timeout(60_000);

  describe('--password-stdin', () => {
    it('user create takes the first line of stdin as the password, without its line ending', async () => {
      const { company } = await factories.workspace();
      const body = await cliOk(
        ['user', 'create', '--company', String(company.id), '--email', email(), '--password-stdin', '--name', 'Stdin', '--role', 'agent'],
        undefined,
        ' spaced pass 1 \r\nsecond line\n',
      );
      const user = await User.findByPk(objectWithKeys(body.user, USER_KEYS, 'user').id as number, { rejectOnEmpty: true });
      assert.equal(await verifyPassword(' spaced pass 1 ', user.passwordHash), true, 'spaces kept, CR LF dropped');
      assert.equal(await verifyPassword(' spaced pass 1 \r', user.passwordHash), false);
    });

    it("workspace create takes the owner's password from stdin (no line ending at all is fine)", async () => {
      const ownerEmail = email();
      const body = await cliOk(['workspace', 'create', '--name', `Stdin ${unique()}`, '--owner-email', ownerEmail, '--password-stdin'], undefined, 'owner-pass-77');
      const owner = await User.findByPk(objectWithKeys(body.owner, USER_KEYS, 'owner').id as number, { rejectOnEmpty: true });
      assert.equal(owner.email, ownerEmail);
      assert.equal(await verifyPassword('owner-pass-77', owner.passwordHash), true);
    });

    it('refuses a password given both ways, and an empty stdin, creating nothing', async () => {
      const { company } = await factories.workspace();
      const address = email();
      const args = ['user', 'create', '--company', String(company.id), '--email', address, '--name', 'X', '--role', 'agent'];
      const both = await cliFails([...args, '--password', 'from-flag-123', '--password-stdin'], undefined, 'from-stdin-123\n');
      assert.match(errorsOf(both).password!.join(' '), /--password or with --password-stdin, not both/);
      const empty = await cliFails([...args, '--password-stdin'], undefined, '\n');
      assert.ok(errorsOf(empty).password);
      const ownerBoth = await cliFails(
        ['workspace', 'create', '--name', `Both ${unique()}`, '--owner-email', email(), '--owner-password', 'from-flag-123', '--password-stdin'],
        undefined,
        'from-stdin-123\n',
      );
      assert.match(errorsOf(ownerBoth)['owner-password']!.join(' '), /not both/);
      assert.equal(await User.count({ where: { email: address } }), 0);
    });
  });

  describe('user password', () => {
    it("sets the password and revokes the user's portal and agent sessions; API tokens and colleagues stay signed in", async () => {
      const { company, owner } = await factories.workspace({ portal: true });
      const colleague = await factories.user(company, 'agent');
      const [portal, agent, api, colleagueAgent] = await Promise.all([
        factories.token(owner, 'portal'),
        factories.token(owner, 'agent'),
        factories.token(owner, 'api'),
        factories.token(colleague, 'agent'),
      ]);

      const body = objectWithKeys(
        await cliOk(['user', 'password', '--user', String(owner.id), '--password-stdin'], undefined, 'brand-new-pass-1\n'),
        ['user', 'revoked_sessions'],
      );
      assert.deepEqual(body.user, { id: owner.id, name: owner.name, email: owner.email, role: 'owner' });
      assert.equal(body.revoked_sessions, 2);

      assert.equal((await get('/api/portal/me', portal)).status, 401);
      assert.equal((await get('/api/agent/me', agent)).status, 401);
      assert.equal((await get('/api/v1/me', api)).status, 200);
      assert.equal((await get('/api/agent/me', colleagueAgent)).status, 200);

      assert.equal((await portalLogin(owner.email, 'password-123')).status, 401, 'the old password opens nothing');
      assert.equal((await portalLogin(owner.email, 'brand-new-pass-1')).status, 200);
      await owner.reload();
      assert.match(owner.passwordHash, CURRENT_PARAMS);
    });

    it('takes --password too, and fails for an unknown user, a short password or none, changing nothing', async () => {
      const { owner } = await factories.workspace();
      assert.deepEqual(await cliOk(['user', 'password', '--user', String(owner.id), '--password', 'flag-pass-12']), {
        user: { id: owner.id, name: owner.name, email: owner.email, role: 'owner' },
        revoked_sessions: 0,
      });
      await owner.reload();
      const stored = owner.passwordHash;
      assert.equal(await verifyPassword('flag-pass-12', stored), true);

      assert.match((await cliFails(['user', 'password', '--user', '2147483000', '--password', 'flag-pass-34'])).message as string, /user not found/i);
      assert.ok(errorsOf(await cliFails(['user', 'password', '--user', String(owner.id), '--password', 'short'])).password);
      // stdin is not a terminal here, so nothing prompts: the password is simply missing.
      assert.ok(errorsOf(await cliFails(['user', 'password', '--user', String(owner.id)])).password);
      await owner.reload();
      assert.equal(owner.passwordHash, stored);
    });
  });

  describe('on a terminal', () => {
    let terminal: TerminalCli | undefined;
    afterEach(() => terminal?.kill());

    it('asks twice without echo (backspace erases) when no password flag is given', async () => {
      const { owner } = await factories.workspace();
      terminal = new TerminalCli(['user', 'password', '--user', String(owner.id)], childEnv(TEST_ENV));
      let at = await terminal.waitFor('Password: ');
      terminal.type('typed-secret-7X\u007f\r');
      at = await terminal.waitFor('Password again: ', at);
      terminal.type('typed-secret-7\r');
      assert.equal(await terminal.exited, 0, terminal.screen);
      assert.equal(printedOn(terminal.screen).revoked_sessions, 0);
      assert.ok(!terminal.screen.includes('typed-secret'), `the password was echoed: ${JSON.stringify(terminal.screen)}`);
      await owner.reload();
      assert.equal(await verifyPassword('typed-secret-7', owner.passwordHash), true);
    });

    it('refuses two different entries, and Ctrl-C cancels, changing nothing', async () => {
      const { owner } = await factories.workspace();
      const stored = owner.passwordHash;
      terminal = new TerminalCli(['user', 'password', '--user', String(owner.id)], childEnv(TEST_ENV));
      const at = await terminal.waitFor('Password: ');
      terminal.type('first-entry-1\r');
      await terminal.waitFor('Password again: ', at);
      terminal.type('second-entry-2\r');
      assert.equal(await terminal.exited, 1);
      assert.match(errorsOf(printedOn(terminal.screen)).password!.join(' '), /do not match/);

      terminal = new TerminalCli(['user', 'password', '--user', String(owner.id)], childEnv(TEST_ENV));
      await terminal.waitFor('Password: ');
      terminal.type('half-typed\u0003');
      assert.equal(await terminal.exited, 1);
      assert.equal(printedOn(terminal.screen).message, 'Cancelled.');
      await owner.reload();
      assert.equal(owner.passwordHash, stored);
    });

    it("asks for the owner's password only when workspace create is given an owner", async () => {
      const name = `Ownerless ${unique()}`;
      terminal = new TerminalCli(['workspace', 'create', '--name', name], childEnv(TEST_ENV));
      assert.equal(await terminal.exited, 0, terminal.screen);
      assert.ok(!terminal.screen.includes('Password'));
      assert.equal(printedOn(terminal.screen).owner, null);

      const ownerEmail = email();
      terminal = new TerminalCli(['workspace', 'create', '--name', `Owned ${unique()}`, '--owner-email', ownerEmail], childEnv(TEST_ENV));
      const at = await terminal.waitFor('Password: ');
      terminal.type('owner-typed-1\r');
      await terminal.waitFor('Password again: ', at);
      terminal.type('owner-typed-1\r');
      assert.equal(await terminal.exited, 0, terminal.screen);
      const owner = await User.findOne({ where: { email: ownerEmail }, rejectOnEmpty: true });
      assert.equal(await verifyPassword('owner-typed-1', owner.passwordHash), true);
    });
  });
});
