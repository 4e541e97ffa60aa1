// Agent responses show times as display strings, not ISO 8601 (docs/api.md "Agent app"). They are rendered in UTC:
// the server knows no agent's zone, and one fixed zone keeps every agent's screen consistent.

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;

const pad = (value: number) => String(value).padStart(2, '0');

/** `Nov 21, 2026` (UTC) */
export function displayDate(date: Date): string {
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}

/** `Nov 21, 2026 14:05` (24-hour clock, UTC) */
export function displayTime(date: Date): string {
  return `${displayDate(date)} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}`;
}

/** The inbox's `last_at`: `just now`, `5m ago`, `3h ago`, `2d ago` (a time as a Date or epoch milliseconds). */
export function relativeTime(at: Date | number, now: Date | number = Date.now()): string {
  const seconds = Math.max(0, Math.floor((Number(now) - Number(at)) / 1000));
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  return `${Math.floor(seconds / 86_400)}d ago`;
}
