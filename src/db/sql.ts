import { literal, type Utils } from 'sequelize';

/**
 * A timestamptz column rendered by Postgres as ISO 8601 UTC with microseconds. JS Dates stop at
 * milliseconds, so shapes that promise microseconds read this string instead of the Date.
 */
export function isoUtcMicros(qualifiedColumn: string): Utils.Literal {
  return literal(`to_char(${qualifiedColumn} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`);
}
