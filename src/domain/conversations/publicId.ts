const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a path value can be a conversation's public id; anything else names no conversation (and must not reach Postgres as a uuid). */
export const isConversationId = (value: string): boolean => UUID.test(value);
