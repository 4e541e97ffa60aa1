import { strict as assert } from 'node:assert';
import { pickAgent, type RoutableAgent } from '../../src/domain/routing/queue';
import { isOpen } from '../../src/domain/routing/businessHours';
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

describe('routing: business hours', () => {
  const hours = (days: Record<string, Array<[string, string]>>, timezone = 'Europe/Paris') => ({ business_hours: { timezone, days } });

  it('always open without business hours; open within an interval of the weekday in the zone, closed at its end and on days not listed', () => {
    // Monday 2026-11-23 08:30 UTC = 09:30 in Paris (winter, UTC+1).
    const monday = new Date('2026-11-23T08:30:00Z');
    assert.equal(isOpen({ business_hours: null }, monday), true);
    assert.equal(isOpen(hours({ mon: [['09:00', '17:00']] }), monday), true);
    assert.equal(isOpen(hours({ mon: [['09:00', '09:30']] }), monday), false, 'the end is not open');
    assert.equal(isOpen(hours({ tue: [['00:00', '23:59']] }), monday), false);
    // The same instant is still Sunday 22:30 in Honolulu (UTC-10).
    assert.equal(isOpen(hours({ sun: [['22:00', '23:00']] }, 'Pacific/Honolulu'), monday), true);
  });

  it('follows daylight saving: 09:30 in New York is 13:30 UTC in summer and 14:30 UTC in winter', () => {
    const open = hours({ mon: [['09:00', '10:00']], wed: [['09:00', '10:00']] }, 'America/New_York');
    assert.equal(isOpen(open, new Date('2026-07-01T13:30:00Z')), true, 'Wednesday in July, EDT');
    assert.equal(isOpen(open, new Date('2026-11-23T13:30:00Z')), false, 'Monday in November, EST: 08:30');
    assert.equal(isOpen(open, new Date('2026-11-23T14:30:00Z')), true);
  });
});
