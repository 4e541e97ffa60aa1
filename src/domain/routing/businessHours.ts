import { localMinutes, minutesOfClock } from '../notifications/clock';
import { WEEKDAYS, type RoutingSettings, type Weekday } from './settings';

// The weekday in a zone, from the runtime's own zone database (Intl): no time-zone library needed.
const weekdayFormats = new Map<string, Intl.DateTimeFormat>();

function weekdayIn(now: Date, zone: string): Weekday {
  let format = weekdayFormats.get(zone);
  if (!format) weekdayFormats.set(zone, (format = new Intl.DateTimeFormat('en-US', { timeZone: zone, weekday: 'short' })));
  return format.format(now).slice(0, 3).toLowerCase() as Weekday;
}

/**
 * Whether the workspace is open at `now`: no business hours means always open; otherwise `now`,
 * read in the hours' zone (daylight saving included), falls in one of that weekday's intervals
 * [start, end). A day not listed is closed.
 */
export function isOpen(settings: Pick<RoutingSettings, 'business_hours'>, now = new Date()): boolean {
  const hours = settings.business_hours;
  if (!hours) return true;
  const day = weekdayIn(now, hours.timezone);
  if (!WEEKDAYS.includes(day)) return true;
  const minutes = localMinutes(now, hours.timezone);
  return (hours.days[day] ?? []).some(([start = '00:00', end = '00:00']) => minutes >= minutesOfClock(start) && minutes < minutesOfClock(end));
}

/** What a visitor outside business hours is told (the handoff answer's `offline` fields). */
export const offlineNotice = (settings: RoutingSettings) => ({ offline: true as const, offline_message: settings.offline_message });
