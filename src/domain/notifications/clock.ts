/** `HH:MM` on a 24-hour clock, 00:00 to 23:59. */
export const CLOCK_TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

// Zone names only: ICU would also take offsets such as "+01:00", which do not follow daylight saving.
export const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]*$/;

export const isClockTime = (value: string): boolean => CLOCK_TIME.test(value);

/** Minutes after midnight of an `HH:MM` time. */
export function minutesOfClock(value: string): number {
  const match = CLOCK_TIME.exec(value);
  if (!match) throw new Error(`not a clock time: ${value}`);
  return Number(match[1]) * 60 + Number(match[2]);
}

/** Whether the runtime's time-zone database knows this IANA name (what a DateTimeFormat accepts). */
export function isTimeZone(name: string): boolean {
  return ZONE_NAME.test(name) && formatterFor(name) !== undefined;
}

// Only known zones are kept, so the cache is bounded by the zone database, not by what callers send.
const formatters = new Map<string, Intl.DateTimeFormat>();

// Building a formatter is the expensive part, and push delivery asks once per agent per event.
function formatterFor(zone: string): Intl.DateTimeFormat | undefined {
  let formatter = formatters.get(zone);
  if (formatter) return formatter;
  try {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  } catch {
    return undefined;
  }
  formatters.set(zone, formatter);
  return formatter;
}

/** Minutes after local midnight at `now` in `zone`; an unknown zone counts as UTC rather than failing delivery. */
export function localMinutes(now: Date, zone: string): number {
  const formatter = formatterFor(zone) ?? formatterFor('UTC')!;
  const parts = formatter.formatToParts(now);
  const hour = Number(parts.find((part) => part.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((part) => part.type === 'minute')?.value ?? 0);
  return (hour % 24) * 60 + minute;
}

/** Whether `minutes` falls in [start, end); a window whose start is after its end runs across midnight. */
export function withinWindow(minutes: number, start: number, end: number): boolean {
  return start < end ? minutes >= start && minutes < end : minutes >= start || minutes < end;
}
