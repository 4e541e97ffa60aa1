import { isDeepStrictEqual } from 'node:util';
import type { InferAttributes } from 'sequelize';
import type { FencedStatement } from '../cluster/fences';
import { Conversation, Message, UsageRecord } from '../../models';
import { queueDeliveries } from '../../domain/webhooks/outbox';
import type { UsageRow } from '../../domain/usage/recordUsage';
import { remembered } from '../../remembered';

type Columns = Partial<InferAttributes<Conversation>>;
export type Param = (value: unknown, cast?: string) => string;

/**
 * A new line's own columns; its id was taken from the sequence beforehand (it is in the outbox event's
 * data). A visitor's line sets the first ones; an AI answer also says what it answers and what it cost.
 */
export type NewLine = Pick<Message, 'id' | 'companyId' | 'conversationId' | 'role' | 'content' | 'clientId' | 'createdAt'> &
  Partial<Pick<Message, 'replyToId' | 'provider' | 'model' | 'tokensIn' | 'tokensOut' | 'sources'>>;

/** The event of the line for integrators (`message.created`), stored with the line: the outbox. */
export interface LineEvent {
  seq: number;
  data: unknown;
}

/**
 * The changes of `changes` that differ from the conversation as loaded (what Sequelize's `update`
 * would write), so the statement writes only those, as the model path does.
 */
export function changedColumns(conversation: Conversation, changes: Columns): Columns {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(changes)) if (!isDeepStrictEqual(conversation.get(key as keyof Columns), value)) changed[key] = value;
  return changed as Columns;
}

/**
 * One statement for a line added alone (a visitor's follow-up, an AI answer): the message inserted,
 * the conversation's columns updated, the integrator event stored and its deliveries queued, and with
 * `usage` the AI call's row in the usage ledger, every write reading the fence (`fencedStatement`).
 * The result row carries the webhooks that got a delivery.
 *
 * The text depends only on which columns are written (a few shapes: `statementShape`), so it is built
 * once per shape and reused, the same string each time (its hash, its prepared statement's name);
 * each call binds its values in the text's order (`lineValues`).
 */
export function lineStatement(line: NewLine, conversationId: number, columns: Columns, event: LineEvent, usage?: UsageRow): (current: string) => FencedStatement {
  return (current) => {
    const shape = statementShape(current, line, columns, usage);
    const bind = lineValues(line, conversationId, columns, event, usage);
    const ctes = remembered(lineTexts, shape, () => {
      const built = lineText(line, conversationId, columns, event, usage, current);
      // The text numbers its parameters as it meets them; the values must come in that order.
      if (!isDeepStrictEqual(built.bind, bind)) throw new Error('lineValues binds in another order than lineText numbers');
      return built.ctes;
    }, SHAPES);
    return { ctes, columns: WEBHOOKS, bind };
  };
}

const WEBHOOKS = 'ARRAY(SELECT DISTINCT webhook_id FROM queued) AS webhooks';
/** Shapes are few (the columns a line changes); this only bounds a mistake. */
const SHAPES = 200;
const lineTexts = new Map<string, string>();

const definedKeys = (row: object): string[] => Object.keys(row).filter((key) => (row as Record<string, unknown>)[key] !== undefined);

/** What the text depends on: the fence's CTE name and the keys of the line, the usage row and the columns written (null-ness of a JSON value does not change it). */
function statementShape(current: string, line: NewLine, columns: Columns, usage: UsageRow | undefined): string {
  return `${current}|${definedKeys(line).join(',')}|${usage ? definedKeys(usage).join(',') : '-'}|${Object.keys(columns).join(',')}`;
}

/** The statement's values in the order its text numbers them (`lineText`): the line, the usage row, the columns, then the event's. */
function lineValues(line: NewLine, conversationId: number, columns: Columns, event: LineEvent, usage: UsageRow | undefined): unknown[] {
  const bind: unknown[] = [];
  rowValues(Message.getAttributes(), line, bind);
  if (usage) rowValues(UsageRecord.getAttributes(), usage, bind);
  const attributes: Attributes = Conversation.getAttributes();
  for (const [key, value] of Object.entries(columns)) bind.push(boundValue(attributes[key]!, value));
  bind.push(conversationId, line.companyId, conversationId, event.seq, JSON.stringify(event.data));
  return bind;
}

function rowValues(attributes: Attributes, row: object, bind: unknown[]): void {
  for (const [key, value] of Object.entries(row)) if (value !== undefined) bind.push(boundValue(attributes[key]!, value));
}

/** The statement built with its values (the first call of each shape). */
function lineText(line: NewLine, conversationId: number, columns: Columns, event: LineEvent, usage: UsageRow | undefined, current: string): { ctes: string; bind: unknown[] } {
  const bind: unknown[] = [];
  // The fence takes $1 and $2.
  const param: Param = (value, cast = '') => `$${bind.push(value) + 2}${cast}`;
  const message = insertRow('messages', Message.getAttributes(), line, current, param);
  const used = usage && insertRow('usage_records', UsageRecord.getAttributes(), usage, current, param);
  const update = `UPDATE conversations SET ${assignments(columns, param)}
     WHERE id = ${param(conversationId, '::bigint')} AND EXISTS (SELECT 1 FROM ${current})`;
  // Typed where they are taken: a parameter used in several places must not be left to inference.
  const company = param(line.companyId, '::int');
  const conversation = param(conversationId, '::bigint');
  const stored = `INSERT INTO integration_events (company_id, conversation_id, seq, type, data)
     SELECT ${company}, ${conversation}, ${param(event.seq, '::bigint')}, 'message.created', ${param(JSON.stringify(event.data), '::json')}
     FROM ${current}
     RETURNING id, type, seq`;
  return {
    ctes: `line_added AS (${message}), conversation_updated AS (${update}), stored AS (${stored}), queued AS (${queueDeliveries('stored', company, conversation)})${used ? `, usage_added AS (${used})` : ''}`,
    bind,
  };
}

type Attributes = Record<string, { field?: string; type: unknown }>;

/** `column = $n` for each attribute, by the model's column names; JSON columns bound as JSON text. */
function assignments(columns: Columns, param: Param): string {
  const attributes: Attributes = Conversation.getAttributes();
  return Object.entries(columns)
    .map(([key, value]) => `"${fieldOf(attributes, 'conversations', key)}" = ${valueOf(attributes[key]!, value, param)}`)
    .join(', ');
}

/**
 * `INSERT INTO table (columns) SELECT values FROM <current>`: the row's defined attributes by the
 * model's column names (left out, a column takes its default, as a model's `create` leaves it). Each
 * value is cast to its column's type, so the fence's `SELECT` does not leave them to inference.
 */
export function insertRow(table: string, attributes: Attributes, row: object, current: string, param: Param): string {
  const entries = Object.entries(row).filter(([, value]) => value !== undefined);
  const fields = entries.map(([key]) => `"${fieldOf(attributes, table, key)}"`);
  const values = entries.map(([key, value]) => valueOf(attributes[key]!, value, param, true));
  return `INSERT INTO ${table} (${fields.join(', ')}) SELECT ${values.join(', ')} FROM ${current}`;
}

function fieldOf(attributes: Attributes, table: string, key: string): string {
  const attribute = attributes[key];
  if (!attribute) throw new Error(`${table} has no attribute ${key}`);
  return attribute.field ?? key;
}

/** SQL casts of the models' types: an `INSERT ... SELECT` needs its values typed. */
const CASTS: Record<string, string> = { BIGINT: 'bigint', INTEGER: 'int', STRING: 'text', TEXT: 'text', CHAR: 'text', UUID: 'uuid', DATE: 'timestamptz', BOOLEAN: 'boolean' };

/**
 * What a column's value is bound as: JSON as JSON text, a time (a timestamptz column) as its ISO
 * text, the same instant as the driver's own local-time text without its per-field formatting,
 * anything else as it is.
 */
function boundValue(attribute: { type: unknown }, value: unknown): unknown {
  const type = (attribute.type as { key?: string }).key;
  if (type === 'JSONB' || type === 'JSON') return value === null ? null : JSON.stringify(value);
  return type === 'DATE' && value instanceof Date ? value.toISOString() : value;
}

/** A bound value for a column: JSON as JSON text; with `typed`, cast to the column's type. */
function valueOf(attribute: { type: unknown }, value: unknown, param: Param, typed = false): string {
  const type = (attribute.type as { key?: string }).key;
  if (type === 'JSONB' || type === 'JSON') return param(boundValue(attribute, value), `::${type.toLowerCase()}`);
  const cast = typed && type ? CASTS[type] : undefined;
  if (typed && !cast) throw new Error(`no cast for a ${type} column`);
  return param(boundValue(attribute, value), cast ? `::${cast}` : '');
}
