import { z } from 'zod';

// Strings with a documented form. Patterns, not formats, where the form is Parley's own.

/** PostgreSQL's UTC rendering with microseconds (v1 `last_message_at`, transcript `created_at`). */
export const isoMicros = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/).describe('ISO 8601 in UTC with microseconds');

/** ISO 8601 in UTC, whole seconds, written with `+00:00`. */
export const isoOffset = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/).describe('ISO 8601 in UTC with a +00:00 offset');

/** Agent display time: `Nov 21, 2026 14:05` (UTC). */
export const displayTime = z.string().regex(/^[A-Z][a-z]{2} \d{1,2}, \d{4} \d{2}:\d{2}$/).describe('display time, e.g. "Nov 21, 2026 14:05" (UTC)');

/** Agent display date: `Nov 21, 2026`. */
export const displayDate = z.string().regex(/^[A-Z][a-z]{2} \d{1,2}, \d{4}$/).describe('display date, e.g. "Nov 21, 2026"');

/** Inbox `last_at`. */
export const relativeTime = z.string().regex(/^(just now|\d+[mhd] ago)$/).describe('relative time: "just now", "5m ago", "3h ago", "2d ago"');

/** A display time, or "" when the moment is unknown (these fields are typed as strings). */
export const displayTimeOrEmpty = z.union([displayTime, z.literal('')]);

export const uuid = z.uuid();
export const count = z.int().min(0);
export const id = z.int().positive();
