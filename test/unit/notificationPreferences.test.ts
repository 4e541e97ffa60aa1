import { strict as assert } from 'node:assert';
import { isClockTime, isTimeZone, localMinutes } from '../../src/domain/notifications/clock';
import {
  allowsPush,
  DEFAULT_STORED,
  dndMinutesLeft,
  mergeChange,
  NOTIFICATION_EVENTS,
  resolvePreferences,
  type Preferences,
  type StoredPreferences,
} from '../../src/domain/notifications/preferences';

const NOW = new Date('2025-01-15T12:00:00Z');
const prefs = (overrides: Partial<StoredPreferences> = {}, userTz: string | null = null): Preferences =>
  resolvePreferences({ ...DEFAULT_STORED, ...overrides }, userTz);
const at = (iso: string) => new Date(iso);

describe('notification preferences: resolution', () => {
  it('fills every default for a user who never saved any', () => {
    const resolved = resolvePreferences(null);
    assert.deepEqual(resolved, {
      pushEnabled: true,
      soundEnabled: true,
      vibrateEnabled: true,
      emailEnabled: false,
      events: Object.fromEntries(NOTIFICATION_EVENTS.map((event) => [event, { push: true, sound: null }])),
      soundPack: 'default',
      volume: 80,
      quietHoursStart: null,
      quietHoursEnd: null,
      quietHoursTz: 'UTC',
      dndUntil: null,
      chatbotFilter: [],
    });
    assert.deepEqual(Object.keys(resolved.events), ['visitor_arrived', 'chat_started', 'visitor_message', 'handoff_requested', 'sla_breach', 'conversation_assigned']);
  });

  it('keeps saved events, defaults the others, and ignores keys it does not know', () => {
    const resolved = prefs({ events: { sla_breach: { push: false, sound: 'alarm' }, made_up: { push: false, sound: null } } });
    assert.deepEqual(resolved.events.sla_breach, { push: false, sound: 'alarm' });
    assert.deepEqual(resolved.events.chat_started, { push: true, sound: null });
    assert.equal('made_up' in resolved.events, false);
  });

  it('reads quiet hours in the saved zone, else the user\'s own, else UTC', () => {
    assert.equal(prefs({ quietHoursTz: 'Asia/Tokyo' }, 'Europe/Paris').quietHoursTz, 'Asia/Tokyo');
    assert.equal(prefs({}, 'Europe/Paris').quietHoursTz, 'Europe/Paris');
    assert.equal(prefs({}).quietHoursTz, 'UTC');
  });

  it('counts DND minutes left, rounded up, and 0 once over', () => {
    assert.equal(dndMinutesLeft(null, NOW), 0);
    assert.equal(dndMinutesLeft(new Date(NOW.getTime() + 90_500), NOW), 2);
    assert.equal(dndMinutesLeft(new Date(NOW.getTime() + 60_000), NOW), 1);
    assert.equal(dndMinutesLeft(new Date(NOW.getTime() - 1), NOW), 0);
  });
});

describe('notification preferences: merging an update', () => {
  it('writes only the fields sent', () => {
    assert.deepEqual(mergeChange(DEFAULT_STORED, {}, NOW), {});
    assert.deepEqual(mergeChange(DEFAULT_STORED, { volume: 0, pushEnabled: false, soundPack: 'chimes' }, NOW), { volume: 0, pushEnabled: false, soundPack: 'chimes' });
  });

  it('merges events key by key: an absent sound keeps the saved one, null resets it, other events stay', () => {
    const current = { ...DEFAULT_STORED, events: { chat_started: { push: false, sound: 'ding' }, sla_breach: { push: true, sound: 'siren' }, legacy: { push: true, sound: null } } };
    const update = mergeChange(current, { events: { chat_started: { push: true }, sla_breach: { push: false, sound: null }, visitor_message: { push: false, sound: 'pop' } } }, NOW);
    assert.deepEqual(update, {
      events: {
        chat_started: { push: true, sound: 'ding' },
        sla_breach: { push: false, sound: null },
        visitor_message: { push: false, sound: 'pop' },
      },
    });
  });

  it('sets quiet hours as a pair and clears both with null', () => {
    assert.deepEqual(mergeChange(DEFAULT_STORED, { quietHours: { start: '22:00', end: '07:00' } }, NOW), { quietHoursStart: '22:00', quietHoursEnd: '07:00' });
    assert.deepEqual(mergeChange(prefsRow({ quietHoursStart: '22:00', quietHoursEnd: '07:00' }), { quietHours: null }, NOW), { quietHoursStart: null, quietHoursEnd: null });
  });

  it('turns dnd_minutes into an end time from now, and 0 cancels', () => {
    assert.deepEqual(mergeChange(DEFAULT_STORED, { dndMinutes: 30 }, NOW), { dndUntil: new Date('2025-01-15T12:30:00Z') });
    assert.deepEqual(mergeChange(DEFAULT_STORED, { dndMinutes: 0 }, NOW), { dndUntil: null });
  });

  it('replaces the chatbot filter; an empty list clears it', () => {
    assert.deepEqual(mergeChange(prefsRow({ chatbotFilter: [1, 2] }), { chatbotFilter: [3] }, NOW), { chatbotFilter: [3] });
    assert.deepEqual(mergeChange(prefsRow({ chatbotFilter: [1, 2] }), { chatbotFilter: [] }, NOW), { chatbotFilter: [] });
  });
});

function prefsRow(overrides: Partial<StoredPreferences>): StoredPreferences {
  return { ...DEFAULT_STORED, ...overrides };
}

describe('notification preferences: allowsPush', () => {
  it('allows everything by default', () => {
    for (const event of NOTIFICATION_EVENTS) assert.equal(allowsPush(prefs(), event, 7, NOW), true, event);
  });

  it('obeys the master switch over every event', () => {
    for (const event of NOTIFICATION_EVENTS) assert.equal(allowsPush(prefs({ pushEnabled: false }), event, 7, NOW), false, event);
  });

  it('obeys each event\'s own switch without touching the others', () => {
    const p = prefs({ events: { visitor_message: { push: false, sound: null } } });
    assert.equal(allowsPush(p, 'visitor_message', 7, NOW), false);
    assert.equal(allowsPush(p, 'handoff_requested', 7, NOW), true);
  });

  it('stays quiet while do-not-disturb runs, and not after', () => {
    const p = prefs({ dndUntil: at('2025-01-15T12:10:00Z') });
    assert.equal(allowsPush(p, 'chat_started', 7, NOW), false);
    assert.equal(allowsPush(p, 'chat_started', 7, at('2025-01-15T12:10:00Z')), true, 'ends exactly at dnd_until');
    assert.equal(allowsPush(p, 'chat_started', 7, at('2025-01-15T13:00:00Z')), true);
  });

  it('notifies only for filtered chatbots; an event tied to no chatbot passes', () => {
    const p = prefs({ chatbotFilter: [3, 4] });
    assert.equal(allowsPush(p, 'chat_started', 3, NOW), true);
    assert.equal(allowsPush(p, 'chat_started', 5, NOW), false);
    assert.equal(allowsPush(p, 'chat_started', null, NOW), true);
    assert.equal(allowsPush(prefs({ chatbotFilter: [] }), 'chat_started', 5, NOW), true, 'an empty filter is no filter');
  });

  it('keeps a same-day quiet window: start inclusive, end exclusive', () => {
    const p = prefs({ quietHoursStart: '12:00', quietHoursEnd: '13:30', quietHoursTz: 'UTC' });
    assert.equal(allowsPush(p, 'chat_started', 1, at('2025-01-15T11:59:00Z')), true);
    assert.equal(allowsPush(p, 'chat_started', 1, at('2025-01-15T12:00:00Z')), false);
    assert.equal(allowsPush(p, 'chat_started', 1, at('2025-01-15T13:29:59Z')), false);
    assert.equal(allowsPush(p, 'chat_started', 1, at('2025-01-15T13:30:00Z')), true);
  });

  it('keeps a window that runs across midnight', () => {
    const p = prefs({ quietHoursStart: '22:00', quietHoursEnd: '07:00', quietHoursTz: 'UTC' });
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-15T21:59:00Z')), true);
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-15T22:00:00Z')), false);
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-15T23:59:00Z')), false);
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-16T00:00:00Z')), false);
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-16T06:59:00Z')), false);
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-16T07:00:00Z')), true);
    assert.equal(allowsPush(p, 'visitor_message', 1, at('2025-01-16T12:00:00Z')), true);
  });

  it('reads the window on the agent\'s clock, daylight saving included', () => {
    // 22:00-07:00 in New York: 03:00-12:00 UTC in winter (UTC-5), 02:00-11:00 UTC in summer (UTC-4).
    const p = prefs({ quietHoursStart: '22:00', quietHoursEnd: '07:00', quietHoursTz: 'America/New_York' });
    assert.equal(allowsPush(p, 'sla_breach', 1, at('2025-01-15T02:30:00Z')), true, 'winter 21:30 local');
    assert.equal(allowsPush(p, 'sla_breach', 1, at('2025-01-15T03:00:00Z')), false, 'winter 22:00 local');
    assert.equal(allowsPush(p, 'sla_breach', 1, at('2025-01-15T11:59:00Z')), false, 'winter 06:59 local');
    assert.equal(allowsPush(p, 'sla_breach', 1, at('2025-01-15T12:00:00Z')), true, 'winter 07:00 local');
    assert.equal(allowsPush(p, 'sla_breach', 1, at('2025-07-15T02:30:00Z')), false, 'summer 22:30 local');
    assert.equal(allowsPush(p, 'sla_breach', 1, at('2025-07-15T11:30:00Z')), true, 'summer 07:30 local');
    // Half-hour zones are clocks too.
    const kolkata = prefs({ quietHoursStart: '09:00', quietHoursEnd: '10:00', quietHoursTz: 'Asia/Kolkata' });
    assert.equal(allowsPush(kolkata, 'sla_breach', 1, at('2025-01-15T03:29:00Z')), true, '08:59 IST');
    assert.equal(allowsPush(kolkata, 'sla_breach', 1, at('2025-01-15T03:30:00Z')), false, '09:00 IST');
  });

  it('falls back to the user\'s zone, then UTC; an unknown zone reads as UTC and a broken time as no quiet hours, rather than failing', () => {
    const paris = prefs({ quietHoursStart: '13:00', quietHoursEnd: '14:00' }, 'Europe/Paris');
    assert.equal(allowsPush(paris, 'chat_started', 1, NOW), false, '13:00 in Paris');
    assert.equal(allowsPush(prefs({ quietHoursStart: '13:00', quietHoursEnd: '14:00' }), 'chat_started', 1, NOW), true, '12:00 UTC');
    assert.equal(allowsPush(prefs({ quietHoursStart: '12:00', quietHoursEnd: '13:00', quietHoursTz: 'Mars/Olympus' }), 'chat_started', 1, NOW), false, 'unknown zone read as UTC');
    assert.equal(allowsPush(prefs({ quietHoursStart: '99:99', quietHoursEnd: '13:00' }), 'chat_started', 1, NOW), true);
    assert.equal(allowsPush(prefs({ quietHoursStart: '12:00', quietHoursEnd: null }), 'chat_started', 1, NOW), true, 'one end is no window');
    assert.equal(allowsPush(prefs({ quietHoursStart: '12:00', quietHoursEnd: '12:00' }), 'chat_started', 1, NOW), true, 'an empty window');
  });
});

describe('notification preferences: clock and zone checks', () => {
  it('accepts HH:MM from 00:00 to 23:59 only', () => {
    for (const good of ['00:00', '07:05', '23:59', '12:30']) assert.equal(isClockTime(good), true, good);
    for (const bad of ['24:00', '7:05', '07:5', '12:60', '12:30:00', ' 12:30', '', 'ab:cd']) assert.equal(isClockTime(bad), false, bad);
  });

  it('accepts IANA zone names the runtime knows, not offsets or made-up names', () => {
    for (const good of ['UTC', 'Europe/Paris', 'America/Argentina/Buenos_Aires', 'Etc/GMT+5']) assert.equal(isTimeZone(good), true, good);
    for (const bad of ['+01:00', 'Mars/Olympus', '', 'Europe/Paris; drop', '../etc/passwd']) assert.equal(isTimeZone(bad), false, bad);
  });

  it('reads the local time of day in a zone', () => {
    assert.equal(localMinutes(at('2025-01-15T00:30:00Z'), 'UTC'), 30);
    assert.equal(localMinutes(at('2025-01-15T00:30:00Z'), 'Asia/Tokyo'), 9 * 60 + 30);
    assert.equal(localMinutes(at('2025-01-15T00:30:00Z'), 'America/Los_Angeles'), 16 * 60 + 30);
  });
});
