import { randomBytes } from 'node:crypto';
import type { PlanName } from '../../config/plans';
import { request, type Reply } from './http';
import * as make from './factories';

/** A made-up client address per caller, so per-IP route limits never leak from one test into another. */
export const freshIp = () => `10.${[0, 0, 0].map(() => randomBytes(1)[0]! % 250).join('.')}`;

/** POST /api/portal/login as a client at `ip` (the test server trusts X-Forwarded-For from loopback). */
export const portalLogin = (email: string, password: string, ip = freshIp()): Promise<Reply> =>
  request('POST', '/api/portal/login', { body: { email, password }, headers: { 'X-Forwarded-For': ip } });

/** A portal-enabled workspace, its owner and a portal token. */
export async function portalTenant(plan: PlanName = 'pro') {
  const { company, owner } = await make.workspace({ portal: true, plan });
  return { company, owner, token: await make.token(owner, 'portal') };
}
