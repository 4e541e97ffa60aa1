import { strict as assert } from 'node:assert';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessToken, CannedReply, Chatbot, Company, Tag, User } from '../../src/models';
import { verifyPassword } from '../../src/security/passwords';
import { ROLE_NAMES } from '../../config/roles';
import { TEST_ENV } from '../support/env';
import { server } from '../support/hooks';
import { get } from '../support/http';
import * as factories from '../support/factories';
import { childEnv, cli, cliFails, cliOk, errorsOf, jsonLine, objectWithKeys } from '../support/processes';

const unique = () => randomBytes(4).toString('hex');
const email = (label = 'cli') => `${label}-${unique()}@example.test`;
const COMPANY_KEYS = ['id', 'name', 'slug', 'plan'];
const USER_KEYS = ['id', 'name', 'email', 'role'];
const DAY_MS = 24 * 3600 * 1000;

/** A printed `{id, ...}` object's id, checked to be a positive integer. */
function idOf(value: unknown): number {
  const id = (value as { id?: unknown }).id;
  assert.ok(Number.isInteger(id) && (id as number) > 0, `bad id: ${JSON.stringify(value)}`);
  return id as number;
}

describe('parley CLI (real process)', function () {
  this.timeout(30_000);

  describe('migrate', () => {
    it('prints the migrations it applied: none, since the database is already migrated', async () => {
      assert.deepEqual(await cliOk(['migrate']), { migrated: [] });
    });
  });

  describe('workspace create', () => {
    it('creates a free workspace without an owner by default', async () => {
      const name = `Acme ${unique()}`;
      const body = objectWithKeys(await cliOk(['workspace', 'create', '--name', name]), ['company', 'owner']);
      const company = objectWithKeys(body.company, COMPANY_KEYS, 'company');
      assert.equal(body.owner, null);
      assert.equal(company.name, name);
      assert.equal(company.plan, 'free');
      assert.equal(company.slug, `acme-${name.split(' ')[1]}`);

      const row = await Company.findByPk(idOf(company));
      assert.ok(row, 'the workspace row exists');
      assert.equal(row.name, name);
      assert.equal(row.slug, company.slug);
      assert.equal(row.plan, 'free');
      assert.equal(row.portalEnabled, false);
      assert.equal(row.suspendedAt, null);
      assert.equal(await User.count({ where: { companyId: row.id } }), 0);
    });

    it('creates a workspace with --plan, --portal and an owner who can sign in with the password', async () => {
      const ownerEmail = email('owner');
      const body = objectWithKeys(
        await cliOk([
          'workspace', 'create', '--name', `Portal ${unique()}`, '--plan', 'starter', '--portal',
          '--owner-email', ownerEmail, '--owner-password', 'correct-horse-1', '--owner-name', 'Olga Owner',
        ]),
        ['company', 'owner'],
      );
      const company = objectWithKeys(body.company, COMPANY_KEYS, 'company');
      const owner = objectWithKeys(body.owner, USER_KEYS, 'owner');
      assert.equal(company.plan, 'starter');
      assert.deepEqual({ name: owner.name, email: owner.email, role: owner.role }, { name: 'Olga Owner', email: ownerEmail, role: 'owner' });

      const row = await Company.findByPk(idOf(company));
      assert.equal(row?.plan, 'starter');
      assert.equal(row?.portalEnabled, true);
      const user = await User.findByPk(idOf(owner));
      assert.ok(user);
      assert.equal(user.companyId, row?.id);
      assert.equal(user.email, ownerEmail);
      assert.equal(user.role, 'owner');
      assert.notEqual(user.passwordHash, 'correct-horse-1');
      assert.equal(await verifyPassword('correct-horse-1', user.passwordHash), true);
    });

    it('refuses an owner email without a password, and an unknown plan, creating nothing', async () => {
      const name = `Half ${unique()}`;
      const half = await cliFails(['workspace', 'create', '--name', name, '--owner-email', email()]);
      assert.ok(errorsOf(half)['owner-password']);
      const plan = await cliFails(['workspace', 'create', '--name', name, '--plan', 'platinum']);
      assert.ok(errorsOf(plan).plan);
      assert.equal(await Company.count({ where: { name } }), 0);
    });
  });

  describe('workspace suspend / unsuspend', () => {
    it('suspends the workspace (its tokens get 403) and unsuspends it (200 again)', async () => {
      const { company, owner } = await factories.workspace();
      const token = await factories.token(owner);
      assert.equal((await get('/api/v1/me', token)).status, 200);

      const suspended = objectWithKeys(await cliOk(['workspace', 'suspend', '--company', String(company.id)]), ['company', 'suspended']);
      assert.equal(suspended.suspended, true);
      assert.deepEqual(objectWithKeys(suspended.company, COMPANY_KEYS, 'company'), {
        id: company.id,
        name: company.name,
        slug: company.slug,
        plan: company.plan,
      });
      await company.reload();
      assert.ok(company.suspendedAt instanceof Date, 'suspendedAt is set');
      const refused = await get('/api/v1/me', token);
      assert.equal(refused.status, 403);
      assert.match(refused.body.message, /suspended/i);

      const resumed = objectWithKeys(await cliOk(['workspace', 'unsuspend', '--company', String(company.id)]), ['company', 'suspended']);
      assert.equal(resumed.suspended, false);
      assert.equal(idOf(resumed.company), company.id);
      await company.reload();
      assert.equal(company.suspendedAt, null);
      const me = await get('/api/v1/me', token);
      assert.equal(me.status, 200);
      assert.equal(me.body.company.id, company.id);
    });

    it('fails with a message for a workspace that does not exist', async () => {
      const body = await cliFails(['workspace', 'suspend', '--company', '2147483000']);
      assert.match(body.message as string, /workspace not found/i);
    });
  });

  describe('user create', () => {
    for (const role of ROLE_NAMES) {
      it(`creates a ${role} in the workspace`, async () => {
        const { company } = await factories.workspace({ plan: 'pro' });
        const address = email(role);
        const body = objectWithKeys(
          await cliOk(['user', 'create', '--company', String(company.id), '--email', address, '--password', 'password-456', '--name', `The ${role}`, '--role', role]),
          ['user'],
        );
        const printed = objectWithKeys(body.user, USER_KEYS, 'user');
        assert.deepEqual({ name: printed.name, email: printed.email, role: printed.role }, { name: `The ${role}`, email: address, role });

        const user = await User.findByPk(idOf(printed));
        assert.ok(user);
        assert.equal(user.companyId, company.id);
        assert.equal(user.role, role);
        assert.equal(user.email, address);
        assert.equal(user.suspendedAt, null);
        assert.equal(await verifyPassword('password-456', user.passwordHash), true);
      });
    }

    it('refuses a duplicate email (in any workspace) with errors.email and creates nothing', async () => {
      const { company, owner } = await factories.workspace();
      const other = await factories.workspace();
      const body = await cliFails([
        'user', 'create', '--company', String(other.company.id), '--email', owner.email, '--password', 'password-456', '--name', 'Dup', '--role', 'agent',
      ]);
      assert.ok(errorsOf(body).email);
      assert.match(body.message as string, /taken/);
      assert.equal(await User.count({ where: { email: owner.email } }), 1);
      assert.equal(await User.count({ where: { companyId: other.company.id } }), 1);
      assert.equal(await User.count({ where: { companyId: company.id } }), 1);
    });

    it('reports every missing required flag in errors', async () => {
      const body = await cliFails(['user', 'create', '--company', '1']);
      const errors = errorsOf(body);
      for (const field of ['email', 'password', 'name', 'role']) assert.ok(errors[field], `errors.${field}`);
      assert.equal(errors.company, undefined);
    });

    it('refuses an unknown role', async () => {
      const { company } = await factories.workspace();
      const body = await cliFails(['user', 'create', '--company', String(company.id), '--email', email(), '--password', 'password-456', '--name', 'X', '--role', 'god']);
      assert.ok(errorsOf(body).role);
    });
  });

  describe('user suspend', () => {
    it('suspends the user: suspendedAt is set and their token gets 403', async () => {
      const { company } = await factories.workspace();
      const agent = await factories.user(company, 'agent');
      const token = await factories.token(agent);
      assert.equal((await get('/api/v1/me', token)).status, 200);

      const body = objectWithKeys(await cliOk(['user', 'suspend', '--user', String(agent.id)]), ['user', 'suspended']);
      assert.equal(body.suspended, true);
      assert.deepEqual(objectWithKeys(body.user, USER_KEYS, 'user'), { id: agent.id, name: agent.name, email: agent.email, role: 'agent' });
      await agent.reload();
      assert.ok(agent.suspendedAt instanceof Date);
      const refused = await get('/api/v1/me', token);
      assert.equal(refused.status, 403);
      assert.match(refused.body.message, /account is suspended/i);
    });

    it('fails with a message for a user that does not exist', async () => {
      const body = await cliFails(['user', 'suspend', '--user', '2147483000']);
      assert.match(body.message as string, /user not found/i);
    });
  });

  describe('chatbot create', () => {
    const CHATBOT_KEYS = ['id', 'public_key', 'name', 'provider', 'model', 'is_active', 'identity_secret'];

    it('creates a chatbot with every flag, printing an identity secret that is stored only sealed', async () => {
      const { company } = await factories.workspace();
      const body = objectWithKeys(
        await cliOk([
          'chatbot', 'create', '--company', String(company.id), '--name', 'Helper', '--provider', 'claude', '--model', 'claude-test-1',
          '--live-visitors', '--inactive',
        ]),
        ['chatbot'],
      );
      const printed = objectWithKeys(body.chatbot, CHATBOT_KEYS, 'chatbot');
      assert.equal(printed.name, 'Helper');
      assert.equal(printed.provider, 'claude');
      assert.equal(printed.model, 'claude-test-1');
      assert.equal(printed.is_active, false);
      assert.match(printed.public_key as string, /^pk_/);
      const secret = printed.identity_secret as string;
      assert.equal(typeof secret, 'string');
      assert.ok(secret.length >= 32, 'the identity secret is long');

      const row = await Chatbot.findByPk(idOf(printed));
      assert.ok(row);
      assert.equal(row.companyId, company.id);
      assert.equal(row.publicKey, printed.public_key);
      assert.equal(row.provider, 'claude');
      assert.equal(row.model, 'claude-test-1');
      assert.equal(row.isActive, false);
      assert.equal(row.branding.live_visitors, true);
      assert.ok(!row.identitySecretEncrypted.includes(secret), 'the secret is not stored in plain text');
      assert.equal(server().ctx.secrets.open(row.identitySecretEncrypted), secret);
    });

    it('defaults to an active openai chatbot without live visitors', async () => {
      const { company } = await factories.workspace();
      const printed = objectWithKeys((await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Plain'])).chatbot, CHATBOT_KEYS, 'chatbot');
      assert.equal(printed.provider, 'openai');
      assert.equal(printed.model, 'gpt-4o-mini');
      assert.equal(printed.is_active, true);
      const row = await Chatbot.findByPk(idOf(printed));
      assert.equal(row?.isActive, true);
      assert.notEqual(row?.branding.live_visitors, true);
      assert.equal(server().ctx.secrets.open(row!.identitySecretEncrypted), printed.identity_secret);
    });

    it('refuses an unknown provider', async () => {
      const { company } = await factories.workspace();
      const body = await cliFails(['chatbot', 'create', '--company', String(company.id), '--name', 'X', '--provider', 'skynet']);
      assert.ok(errorsOf(body).provider);
      assert.equal(await Chatbot.count({ where: { companyId: company.id } }), 0);
    });
  });

  describe('token create / revoke', () => {
    function checkExpiry(expiresAt: unknown, before: number, after: number): void {
      assert.equal(typeof expiresAt, 'string');
      assert.equal(new Date(expiresAt as string).toISOString(), expiresAt, 'expires_at is an ISO timestamp');
      const at = Date.parse(expiresAt as string);
      assert.ok(at >= before + 30 * DAY_MS - 1000 && at <= after + 30 * DAY_MS + 1000, `expires_at ${expiresAt} is not 30 days ahead`);
    }

    it('issues an api token for a user id that works on /api/v1/me and expires in 30 days', async () => {
      const { company, owner } = await factories.workspace();
      const before = Date.now();
      const body = objectWithKeys(await cliOk(['token', 'create', '--user', String(owner.id), '--name', 'ci deploy']), ['token', 'expires_at']);
      const after = Date.now();
      checkExpiry(body.expires_at, before, after);

      const me = await get('/api/v1/me', body.token as string);
      assert.equal(me.status, 200);
      assert.equal(me.body.user.id, owner.id);
      assert.equal(me.body.company.id, company.id);
      const row = await AccessToken.findByPk(Number((body.token as string).split('|')[0]));
      assert.equal(row?.userId, owner.id);
      assert.equal(row?.name, 'ci deploy');
      assert.equal(row?.ability, 'api');
      assert.ok(!row?.tokenHash.includes((body.token as string).split('|')[1]!), 'only a hash of the secret is stored');
    });

    it('issues a token for a user found by email', async () => {
      const { company } = await factories.workspace();
      const admin = await factories.user(company, 'admin');
      const before = Date.now();
      const body = objectWithKeys(await cliOk(['token', 'create', '--user', admin.email]), ['token', 'expires_at']);
      checkExpiry(body.expires_at, before, Date.now());
      const me = await get('/api/v1/me', body.token as string);
      assert.equal(me.status, 200);
      assert.equal(me.body.user.id, admin.id);
      assert.equal(me.body.user.email, admin.email);
    });

    it('fails with a message for an unknown user', async () => {
      const body = await cliFails(['token', 'create', '--user', email('nobody')]);
      assert.match(body.message as string, /user not found/i);
    });

    it('revokes a token: the same token then gets 401, and a second revoke fails', async () => {
      const { owner } = await factories.workspace();
      const { token } = await cliOk(['token', 'create', '--user', String(owner.id)]);
      assert.equal((await get('/api/v1/me', token as string)).status, 200);
      const tokenId = (token as string).split('|')[0]!;

      assert.deepEqual(await cliOk(['token', 'revoke', '--token-id', tokenId]), { revoked: true });
      assert.ok((await AccessToken.findByPk(Number(tokenId)))?.revokedAt instanceof Date);
      assert.equal((await get('/api/v1/me', token as string)).status, 401);

      const again = await cliFails(['token', 'revoke', '--token-id', tokenId]);
      assert.match(again.message as string, /token not found/i);
    });
  });

  describe('tag create', () => {
    it('creates a tag with a colour', async () => {
      const { company } = await factories.workspace();
      const body = objectWithKeys(await cliOk(['tag', 'create', '--company', String(company.id), '--name', 'VIP', '--color', '#22c55e']), ['tag']);
      const tag = objectWithKeys(body.tag, ['id', 'name', 'color'], 'tag');
      assert.equal(tag.name, 'VIP');
      assert.equal(tag.color, '#22c55e');
      const row = await Tag.findByPk(idOf(tag));
      assert.equal(row?.companyId, company.id);
      assert.equal(row?.name, 'VIP');
      assert.equal(row?.color, '#22c55e');
    });

    it('prints the stored default colour when none is given, and refuses a bad colour', async () => {
      const { company } = await factories.workspace();
      const tag = objectWithKeys((await cliOk(['tag', 'create', '--company', String(company.id), '--name', 'Billing'])).tag, ['id', 'name', 'color'], 'tag');
      const row = await Tag.findByPk(idOf(tag));
      assert.equal(row?.color, tag.color);
      assert.match(tag.color as string, /^#[0-9a-f]{6}$/i);

      const bad = await cliFails(['tag', 'create', '--company', String(company.id), '--name', 'Red', '--color', 'red']);
      assert.ok(errorsOf(bad).color);
      assert.equal(await Tag.count({ where: { companyId: company.id } }), 1);
    });
  });

  describe('canned create', () => {
    it('creates a shared canned reply when no user is given', async () => {
      const { company } = await factories.workspace();
      const body = objectWithKeys(
        await cliOk(['canned', 'create', '--company', String(company.id), '--title', 'Greeting', '--shortcut', 'hi', '--body', 'Hello there!']),
        ['canned'],
      );
      const canned = body.canned as Record<string, unknown>;
      assert.equal(canned.title, 'Greeting');
      assert.equal(canned.shortcut, 'hi');
      assert.equal(canned.body, 'Hello there!');
      const row = await CannedReply.findByPk(idOf(canned));
      assert.ok(row);
      assert.equal(row.companyId, company.id);
      assert.equal(row.userId, null);
      assert.equal(row.body, 'Hello there!');
    });

    it("creates a user's own canned reply with --user, and refuses a user of another workspace", async () => {
      const { company, owner } = await factories.workspace();
      const canned = (await cliOk([
        'canned', 'create', '--company', String(company.id), '--title', 'Bye', '--shortcut', 'bye', '--body', 'Goodbye!', '--user', String(owner.id),
      ])).canned;
      const row = await CannedReply.findByPk(idOf(canned));
      assert.equal(row?.companyId, company.id);
      assert.equal(row?.userId, owner.id);

      const stranger = await factories.workspace();
      const refused = await cliFails([
        'canned', 'create', '--company', String(company.id), '--title', 'X', '--shortcut', 'x', '--body', 'X', '--user', String(stranger.owner.id),
      ]);
      assert.ok(errorsOf(refused).user);
      assert.equal(await CannedReply.count({ where: { companyId: company.id } }), 1);
    });
  });

  describe('seed demo', () => {
    const SEED_KEYS = ['workspace', 'users', 'chatbot', 'api_token', 'urls'];
    const dataDirs: string[] = [];
    /** The CLI's environment with a data directory of its own, where the demo passwords are kept. */
    const withDataDir = async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'parley-demo-'));
      dataDirs.push(dataDir);
      return { dataDir, env: childEnv({ ...TEST_ENV, DATA_DIR: dataDir }) };
    };
    after(async () => Promise.all(dataDirs.map((dir) => rm(dir, { recursive: true, force: true }))));

    function checkSeed(body: Record<string, unknown>) {
      objectWithKeys(body, SEED_KEYS, 'seed');
      const workspace = objectWithKeys(body.workspace, COMPANY_KEYS, 'workspace');
      assert.ok(Array.isArray(body.users) && body.users.length >= 1, 'users');
      const users = (body.users as unknown[]).map((u) => objectWithKeys(u, [...USER_KEYS, 'password'], 'user'));
      const chatbot = body.chatbot as Record<string, unknown>;
      assert.match(chatbot.public_key as string, /^pk_/);
      assert.equal(typeof body.api_token, 'string');
      const urls = body.urls as Record<string, unknown>;
      assert.ok(Object.keys(urls).length > 0);
      for (const value of Object.values(urls)) assert.match(value as string, /http:\/\/parley\.test/, 'urls use APP_URL');
      return { workspaceId: idOf(workspace), users, chatbot, token: body.api_token as string };
    }

    async function signsIn(printed: Record<string, unknown>): Promise<boolean> {
      const user = await User.findByPk(idOf(printed));
      assert.ok(user, `user ${String(printed.email)} exists`);
      return verifyPassword(printed.password as string, user.passwordHash);
    }

    let first: ReturnType<typeof checkSeed>;
    let firstDir: Awaited<ReturnType<typeof withDataDir>>;

    it('prints everything a newcomer needs, with random passwords kept in the data directory; running it again reuses all of it', async () => {
      firstDir = await withDataDir();
      first = checkSeed(await cliOk(['seed', 'demo'], firstDir.env));
      assert.deepEqual(first.users.map((u) => u.role), ['owner', 'admin', 'agent']);

      const company = await Company.findByPk(first.workspaceId);
      assert.ok(company, 'the demo workspace exists');
      for (const printed of first.users) {
        assert.match(printed.password as string, /^[\w-]{16,}$/, 'a long random password');
        assert.equal(await signsIn(printed), true, `password of ${String(printed.email)}`);
        assert.equal((await User.findByPk(idOf(printed)))?.companyId, company.id);
      }
      assert.equal(new Set(first.users.map((u) => u.password)).size, 3, 'each user has their own password');
      const kept = join(firstDir.dataDir, 'demo-passwords.json');
      assert.equal((await stat(kept)).mode & 0o777, 0o600);
      assert.deepEqual(JSON.parse(await readFile(kept, 'utf8')), Object.fromEntries(first.users.map((u) => [u.email, u.password])));
      const bot = await Chatbot.findOne({ where: { publicKey: first.chatbot.public_key as string } });
      assert.equal(bot?.companyId, company.id);

      const me = await get('/api/v1/me', first.token);
      assert.equal(me.status, 200);
      assert.equal(me.body.company.id, first.workspaceId);

      const second = checkSeed(await cliOk(['seed', 'demo'], firstDir.env));
      assert.equal(second.workspaceId, first.workspaceId);
      assert.deepEqual(second.users, first.users, 'the same users with the same passwords');
      assert.equal(second.chatbot.public_key, first.chatbot.public_key);
      assert.equal(await Company.count({ where: { slug: company.slug } }), 1);
      assert.equal((await get('/api/v1/me', second.token)).status, 200);
    });

    it('gives new random passwords from a data directory that does not know them, and prints only passwords that sign in', async () => {
      const other = await withDataDir();
      const elsewhere = checkSeed(await cliOk(['seed', 'demo'], other.env));
      assert.equal(elsewhere.workspaceId, first.workspaceId);
      for (const [i, printed] of elsewhere.users.entries()) {
        assert.notEqual(printed.password, first.users[i]!.password);
        assert.equal(await signsIn(printed), true);
        assert.equal(await signsIn(first.users[i]!), false, 'the password the first data directory knew is gone');
      }
      // The first directory's file is now stale: its passwords are replaced again rather than printed wrong.
      const back = checkSeed(await cliOk(['seed', 'demo'], firstDir.env));
      for (const printed of back.users) assert.equal(await signsIn(printed), true);
      first = back;
    });

    it('does not bring back a demo user an operator deleted', async () => {
      const agent = first.users.find((u) => u.role === 'agent')!;
      await AccessToken.destroy({ where: { userId: idOf(agent) } });
      await User.destroy({ where: { id: idOf(agent) } });
      const after = checkSeed(await cliOk(['seed', 'demo'], firstDir.env));
      assert.deepEqual(after.users.map((u) => u.role), ['owner', 'admin']);
      assert.equal(await User.count({ where: { email: agent.email as string } }), 0);
    });
  });

  describe('failures and output discipline', () => {
    it('fails on an unknown command with a message', async () => {
      const body = await cliFails(['frobnicate', 'everything']);
      assert.match(body.message as string, /usage/i);
      assert.equal(body.errors, undefined);
    });

    it('fails on missing required flags with errors naming them', async () => {
      const body = await cliFails(['tag', 'create']);
      const errors = errorsOf(body);
      assert.ok(errors.company);
      assert.ok(errors.name);
    });

    it('fails on an unknown flag with a message naming it', async () => {
      const { company } = await factories.workspace();
      const body = await cliFails(['tag', 'create', '--company', String(company.id), '--name', 'Nope', '--bogus', 'x']);
      assert.match(body.message as string, /bogus/);
      assert.equal(await Tag.count({ where: { companyId: company.id } }), 0);
    });

    it('fails with a message for a workspace id that does not exist', async () => {
      for (const args of [
        ['tag', 'create', '--name', 'x'],
        ['user', 'create', '--email', email(), '--password', 'password-456', '--name', 'X', '--role', 'agent'],
        ['chatbot', 'create', '--name', 'x'],
      ]) {
        const body = await cliFails([...args, '--company', '2147483000']);
        assert.match(body.message as string, /workspace not found/i, args.join(' '));
      }
    });

    it('keeps stdout to the one JSON line even when logging verbosely (logs go to stderr)', async () => {
      const name = `Loud ${unique()}`;
      const run = await cli(['workspace', 'create', '--name', name], childEnv({ ...TEST_ENV, LOG_LEVEL: 'trace' }));
      assert.equal(run.code, 0, run.stderr);
      const body = jsonLine(run);
      assert.equal((body.company as Record<string, unknown>).name, name);
      assert.ok(!run.stdout.includes('"level"'), 'no log line on stdout');
      assert.match(run.stderr, /"level":10/, 'trace logs were written to stderr');
    });
  });
});
