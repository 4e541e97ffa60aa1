import { strict as assert } from 'node:assert';
import type { PlanName } from '../../config/plans';
import type { RoleName } from '../../config/roles';
import type { Company } from '../../src/models';
import * as make from './factories';
import { server } from './hooks';
import { request } from './http';
import { connect, Inbox, subscribe, type ClientSocket } from './sockets';

/** A workspace with an owner, one user of `role` (agent by default), a chatbot and that user's agent token. */
export async function agentTenant(options: { plan?: PlanName; role?: RoleName } = {}) {
  const { company, owner } = await make.workspace({ plan: options.plan ?? 'pro' });
  const agent = await make.user(company, options.role ?? 'agent');
  const bot = await make.chatbot(company);
  return { company, owner, agent, bot, token: await make.token(agent, 'agent') };
}

/**
 * A second agent of the workspace with the inbox channel (`private-company.<id>`) open: what other
 * agents see live. The socket joins `sockets`, for the caller to close.
 */
export async function secondAgentInbox(company: Company, sockets: ClientSocket[]): Promise<Inbox> {
  const token = await make.token(await make.user(company, 'agent'), 'agent');
  const socket = await connect(server().url, { token });
  sockets.push(socket);
  const inbox = new Inbox(socket);
  const channel = `private-company.${company.id}`;
  const auth = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel } });
  assert.deepEqual(await subscribe(socket, channel, auth.body.auth), { ok: true });
  return inbox;
}
