import { strict as assert } from 'node:assert';
import { pickAgent, type RoutableAgent } from '../../src/domain/routing/queue';
import { routingOf } from '../../src/domain/routing/settings';

const agent = (id: number, load: number, lastAssignedAt: number | null = null, capacity = 3): RoutableAgent => ({
  id,
  status: 'online',
  capacity,
  load,
  lastAssignedAt: lastAssignedAt === null ? null : new Date(lastAssignedAt),
});

describe('routing: which agent gets the next conversation', () => {
  it('the fewest open conversations first; ties go to the longest since their last assignment (never assigned first), then the lowest id', () => {
    assert.equal(pickAgent([agent(1, 2), agent(2, 1), agent(3, 1)], null)?.id, 2);
    assert.equal(pickAgent([agent(1, 1, 5_000), agent(2, 1, 1_000), agent(3, 1, 9_000)], null)?.id, 2);
    assert.equal(pickAgent([agent(1, 1, 5_000), agent(2, 1, null)], null)?.id, 2);
  });

  it('nobody at capacity is picked; none with room answers undefined', () => {
    assert.equal(pickAgent([agent(1, 0, null, 0), agent(2, 3), agent(3, 2)], null)?.id, 3);
    assert.equal(pickAgent([agent(1, 3), agent(2, 5, null, 5)], null), undefined);
  });

  it('the agent who let the accept timer lapse is passed over while anyone else has room, and only then', () => {
    assert.equal(pickAgent([agent(1, 0), agent(2, 2)], 1)?.id, 2);
    assert.equal(pickAgent([agent(1, 0), agent(2, 3)], 1)?.id, 1);
  });

  it('stored settings fall back to the default one by one when a value no longer passes its rule', () => {
    const settings = routingOf({ settings: { routing: { mode: 'auto', capacity: 0, accept_seconds: 60, business_hours: { timezone: 'Nowhere/Land', days: {} } } } });
    assert.deepEqual([settings.mode, settings.capacity, settings.accept_seconds, settings.business_hours], ['auto', 5, 60, null]);
  });
});
