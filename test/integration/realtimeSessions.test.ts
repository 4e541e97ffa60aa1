import { strict as assert } from 'node:assert';
import { QueryTypes } from 'sequelize';
import { setUserSuspended } from '../../src/domain/accounts/createUser';
import { setWorkspaceSuspended } from '../../src/domain/accounts/createWorkspace';
import { issueToken, TOKEN_LIFETIME_DAYS } from '../../src/domain/accounts/tokens';
import { AccessToken } from '../../src/models';
import { joinChannel } from '../support/agent';
import { server } from '../support/hooks';
import { get, request } from '../support/http';
import * as make from '../support/factories';
import { cliOk } from '../support/processes';
import { connect, Inbox, subscribe, type ClientSocket, emitRaw } from '../support/sockets';

const SERVER_CLOSED = 'io server disconnect';
const tokenId = (plain: string) => Number(plain.split('|')[0]);

/**
 * Hears the socket's close from now on; `within(ms)` then waits at most `ms` more for it. The clock
 * starts when the change that should close it is done, so a slow step before that (a CLI process
 * starting on a busy machine) is not counted against the node.
 */
function closing(socket: ClientSocket): { within(ms?: number): Promise<string> } {
  if (socket.disconnected) throw new Error('the socket was already closed when the test began listening');
  const reason = new Promise<string>((resolve) => socket.once('disconnect', resolve));
  return {
    within: (ms = 5000) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`socket ${socket.id} still open after ${ms} ms`)), ms)));
      return Promise.race([reason, late]).finally(() => clearTimeout(timer));
    },
  };
}

describe('realtime sockets follow their token (closed on logout, expiry, revocation, suspension)', () => {
  const sockets: ClientSocket[] = [];
  const open = async (auth: Record<string, unknown>) => {
    const socket = await connect(server().url, auth);
    sockets.push(socket);
    return socket;
  };
  afterEach(() => sockets.splice(0).forEach((socket) => socket.close()));

  it("logout closes the sockets of the token's whole family, which then receive nothing; another sign-in's socket lives on", async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const signIn = (await issueToken(agent, 'agent')).plain;
    const refreshed = (await request('POST', '/api/agent/refresh', { token: signIn })).body.token as string;
    const otherDevice = (await issueToken(agent, 'agent')).plain;
    const channel = `private-company.${company.id}`;
    const [first, second, third] = await Promise.all([open({ token: signIn }), open({ token: refreshed }), open({ token: otherDevice })]);
    await joinChannel(first!, signIn, channel);
    await joinChannel(third!, otherDevice, channel);
    const signedOut = new Inbox(first!);
    const stillIn = new Inbox(third!);
    const ends = [closing(first!), closing(second!)];

    assert.equal((await request('POST', '/api/agent/logout', { token: refreshed })).status, 200);
    assert.deepEqual(await Promise.all(ends.map((end) => end.within())), [SERVER_CLOSED, SERVER_CLOSED]);

    emitRaw(server().realtime, channel, 'message.created', { content: 'my card is 4242 4242 4242 4242' }, 1);
    await stillIn.next((received) => received.name === 'message.created');
    assert.deepEqual(signedOut.received, [], 'the signed-out socket received nothing');
    assert.ok(third!.connected);
  });

  it('a socket is closed when its token expires, not before', async () => {
    const { owner } = await make.workspace();
    const expiresIn = 1500;
    const { plain, token } = await issueToken(owner, 'agent', { now: new Date(Date.now() - TOKEN_LIFETIME_DAYS * 24 * 3600 * 1000 + expiresIn) });
    const socket = await open({ token: plain });
    assert.equal(await closing(socket).within(), SERVER_CLOSED);
    assert.ok(Date.now() >= token.expiresAt.getTime(), 'closed at expiry, not before');
  });

  it("suspending a user closes that user's sockets; suspending a workspace closes its agent and widget sockets, and no other workspace's", async () => {
    const a = await make.workspace();
    const b = await make.workspace();
    const colleague = await make.user(a.company, 'agent');
    const botA = await make.chatbot(a.company);
    const conversationA = await make.conversation(botA);
    const botB = await make.chatbot(b.company);
    const conversationB = await make.conversation(botB);
    const widget = (bot: typeof botA, conversation: typeof conversationA) => open({ key: bot.publicKey, visitor_id: conversation.visitorKey, conversation_id: conversation.publicId });

    const owner = await open({ token: await make.token(a.owner, 'agent') });
    const colleagueSocket = await open({ token: await make.token(colleague, 'agent') });
    const widgetA = await widget(botA, conversationA);
    const ownerB = await open({ token: await make.token(b.owner, 'agent') });
    const widgetB = await widget(botB, conversationB);

    const ownerClosed = closing(owner);
    await setUserSuspended(a.owner, true);
    assert.equal(await ownerClosed.within(), SERVER_CLOSED);
    assert.ok(colleagueSocket.connected && widgetA.connected, 'the suspended user only');

    const workspaceClosed = [closing(colleagueSocket), closing(widgetA)];
    await setWorkspaceSuspended(a.company, true);
    assert.deepEqual(await Promise.all(workspaceClosed.map((end) => end.within())), [SERVER_CLOSED, SERVER_CLOSED]);
    // The other workspace's sockets are still served: a subscribe round trip proves the connection live.
    await joinChannel(ownerB, await make.token(b.owner, 'agent'), `private-company.${b.company.id}`);
    assert.ok(widgetB.connected);
  });

  it('the CLI, another process: revoke-sessions, a password change and token revoke close sockets at once; API tokens keep working', async () => {
    const { company } = await make.workspace();
    const agent = await make.user(company, 'agent');
    const api = await make.token(agent, 'api');

    const first = await open({ token: await make.token(agent, 'agent') });
    const revokedByCli = closing(first);
    const revoked = await cliOk(['user', 'revoke-sessions', '--user', String(agent.id)]);
    assert.equal(revoked.revoked_sessions, 1);
    assert.equal(await revokedByCli.within(), SERVER_CLOSED);
    assert.equal((await get('/api/v1/chatbots', api)).status, 200, 'API tokens are not sessions');

    const second = await open({ token: await make.token(agent, 'agent') });
    const passwordChanged = closing(second);
    await cliOk(['user', 'password', '--user', String(agent.id), '--password-stdin'], undefined, 'a-new-password-1\n');
    assert.equal(await passwordChanged.within(), SERVER_CLOSED);

    const plain = await make.token(agent, 'agent');
    const third = await open({ token: plain });
    const tokenRevoked = closing(third);
    assert.deepEqual(await cliOk(['token', 'revoke', '--token-id', String(tokenId(plain))]), { revoked: true });
    assert.equal(await tokenRevoked.within(), SERVER_CLOSED);
  });

  it('subscribe checks the token again: one that ended unannounced is refused and its socket closed', async () => {
    const { company, owner } = await make.workspace();
    const plain = await make.token(owner, 'agent');
    const socket = await open({ token: plain });
    const channel = `private-company.${company.id}`;
    const signed = await request('POST', '/api/agent/broadcasting/auth', { token: plain, body: { socket_id: socket.id, channel_name: channel } });
    // Written behind the domain's back, so no announcement goes out: only the subscribe's own check can notice.
    await AccessToken.update({ revokedAt: new Date() }, { where: { id: tokenId(plain) } });
    const end = closing(socket);
    assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: false, message: 'Your session has ended. Sign in again.' });
    assert.equal(await end.within(), SERVER_CLOSED);
  });

  it('a node whose announcement connection dropped checks every socket once it is back', async () => {
    const { owner } = await make.workspace();
    const plain = await make.token(owner, 'agent');
    const socket = await open({ token: plain });
    await AccessToken.update({ revokedAt: new Date() }, { where: { id: tokenId(plain) } });
    const end = closing(socket);
    const [terminated] = await server().ctx.db.sequelize.query<{ count: string }>(
      `SELECT count(pg_terminate_backend(pid)) AS count FROM pg_stat_activity
        WHERE application_name = 'parley access listener' AND datname = current_database()`,
      { type: QueryTypes.SELECT },
    );
    assert.ok(Number(terminated?.count) >= 1, 'the listener connection was found and dropped');
    assert.equal(await end.within(), SERVER_CLOSED);
  });
});
