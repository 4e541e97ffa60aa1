import { routingOfCompany } from '../../domain/routing/settings';
import type { Actors } from '../runtime/router';
import './protocol';

/**
 * Tells the workspace's router that something it decides on changed. Read fresh per call, so manual
 * mode (the default) never wakes a router at all and behaves exactly as before routing existed. A
 * tell, never an ask: the router asks conversation actors, so a conversation actor waiting on the
 * router could wait on itself.
 */
export async function kickRouter(actors: Actors, companyId: number): Promise<void> {
  if ((await routingOfCompany(companyId)).mode !== 'auto') return;
  actors.tell('routing', String(companyId), { type: 'pump' });
}
