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

/** Subscribes an agent socket to a channel through the real authorization endpoint (of `baseUrl`'s node), asserting the ack. */
export async function joinChannel(socket: ClientSocket, token: string, channel: string, baseUrl?: string): Promise<void> {
  const signed = await request('POST', '/api/agent/broadcasting/auth', { token, body: { socket_id: socket.id, channel_name: channel }, baseUrl });
  assert.equal(signed.status, 200, JSON.stringify(signed.body));
  assert.deepEqual(await subscribe(socket, channel, signed.body.auth), { ok: true });
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
  await joinChannel(socket, token, `private-company.${company.id}`);
  return inbox;
}
