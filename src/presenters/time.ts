/** ISO 8601 in UTC with an explicit `+00:00` offset and whole seconds, the form the API calls "with offset". */
export const isoWithOffset = (date: Date): string => `${date.toISOString().slice(0, 19)}+00:00`;
