import type { Journal } from './journal';
import { answerSerial, type ProviderCall } from './provider';
import type { PrivatePostgres } from './postgres';

export interface Check {
  name: string;
  pass: boolean;
  /** What was measured, in one line. */
  detail: string;
  /** The first few offending items, for the report. */
  examples: string[];
}

interface Row {
  id: number;
  conversation: string;
  role: string;
  client_id: string | null;
  reply_to_id: number | null;
  content: string;
  model: string | null;
}

export interface StoreFigures {
  messagesStored: number;
  conversations: number;
  acknowledgedVisitorMessages: number;
  acknowledgedAgentReplies: number;
  /** Visitor messages stored although no attempt was acknowledged (the load gave up, or its answer never came). */
  storedUnacknowledged: number;
  /** A client id stored in two conversations: a first message whose retry (no conversation id yet) opened another. */
  clientIdsInTwoConversations: number;
  aiAnswersStored: number;
  providerCalls: number;
  /** Visitor messages whose answer needed more than one provider call, and why the others did not count. */
  askedAgain: { messages: number; cutOffCalls: number; completedNotStoredCalls: number };
}

/** A provider call whose answer was not the one stored, and when the message's next call (its retry) began. */
export interface ExtraCall {
  call: ProviderCall;
  retriedAt: number | undefined;
}

const show = (items: string[]) => items.slice(0, 5);

/** The database, read once after the load has stopped, against what the load was told. */
export async function storeChecks(
  postgres: PrivatePostgres,
  journal: Journal,
  calls: ProviderCall[],
): Promise<{ checks: Check[]; figures: StoreFigures; extraCalls: ExtraCall[] }> {
  const rows = await postgres.query<Row>(
    'SELECT m.id::int AS id, c.public_id AS conversation, m.role, m.client_id, m.reply_to_id::int AS reply_to_id, m.content, m.model FROM messages m JOIN conversations c ON c.id = m.conversation_id ORDER BY m.id',
  );
  const byId = new Map(rows.map((row) => [row.id, row]));
  const byClient = new Map<string, Row[]>();
  for (const row of rows) if (row.client_id) byClient.set(row.client_id, [...(byClient.get(row.client_id) ?? []), row]);
  const answersTo = new Map<number, Row[]>();
  for (const row of rows) if (row.role === 'assistant' && row.reply_to_id !== null) answersTo.set(row.reply_to_id, [...(answersTo.get(row.reply_to_id) ?? []), row]);

  // 1. Every acknowledged visitor message is in the database exactly once, where the visitor was told.
  const acknowledged = journal.messages.filter((m) => m.visitorMessageIds.size > 0);
  const visitorProblems: string[] = [];
  for (const m of acknowledged) {
    const conversations = [...m.conversationIds];
    const stored = (byClient.get(m.clientId) ?? []).filter((r) => r.role === 'visitor' && conversations.includes(r.conversation));
    if (conversations.length !== 1) visitorProblems.push(`${m.clientId}: acknowledged in ${conversations.length} conversations`);
    else if (stored.length !== 1) visitorProblems.push(`${m.clientId}: stored ${stored.length} times in ${conversations[0]}`);
    else if (m.visitorMessageIds.size !== 1 || !m.visitorMessageIds.has(stored[0]!.id)) visitorProblems.push(`${m.clientId}: told ids ${[...m.visitorMessageIds].join(',')}, stored ${stored[0]!.id}`);
  }

  // 2. Every acknowledged agent reply (load and probe) is in the database exactly once.
  const sent = journal.replies.filter((r) => r.messageIds.size > 0);
  const replyProblems: string[] = [];
  for (const r of sent) {
    const stored = (byClient.get(r.clientId) ?? []).filter((row) => row.role === 'agent' && row.conversation === r.conversationId);
    if (stored.length !== 1) replyProblems.push(`${r.clientId}: stored ${stored.length} times`);
    else if (r.messageIds.size !== 1 || !r.messageIds.has(stored[0]!.id)) replyProblems.push(`${r.clientId}: told ids ${[...r.messageIds].join(',')}, stored ${stored[0]!.id}`);
  }

  // 3. No visitor message has two answers, stored or sent; the answer sent is the one stored.
  const answerProblems: string[] = [];
  for (const [question, answers] of answersTo) if (answers.length > 1) answerProblems.push(`visitor message ${question}: ${answers.length} answers stored`);
  for (const m of acknowledged.filter((x) => x.result === 'answered')) {
    const question = [...m.visitorMessageIds][0]!;
    const stored = answersTo.get(question)?.[0];
    if (m.answerIds.size !== 1) answerProblems.push(`${m.clientId}: done carried ${m.answerIds.size} different answer ids`);
    else if (!stored || !m.answerIds.has(stored.id)) answerProblems.push(`${m.clientId}: done said ${[...m.answerIds][0]}, stored ${stored?.id ?? 'nothing'}`);
    else if (m.answerText !== stored.content) answerProblems.push(`${m.clientId}: the streamed answer differs from the stored one`);
  }

  // 4. Each stored AI answer was written by one provider call made for that very message; other calls
  //    for the same message were cut off by their caller or finished without their answer being stored.
  const callsByTag = new Map<string, ProviderCall[]>();
  for (const call of calls) if (call.tag) callsByTag.set(call.tag, [...(callsByTag.get(call.tag) ?? []), call]);
  const providerProblems: string[] = [];
  const askedAgain = { messages: 0, cutOffCalls: 0, completedNotStoredCalls: 0 };
  const extraCalls: ExtraCall[] = [];
  let aiAnswers = 0;
  for (const row of rows) {
    if (row.role !== 'assistant' || row.model === 'handoff') continue;
    aiAnswers++;
    const question = row.reply_to_id === null ? undefined : byId.get(row.reply_to_id);
    const serial = answerSerial(row.content);
    const call = serial === undefined ? undefined : calls[serial - 1];
    if (!question?.client_id || !call || call.tag !== question.client_id) {
      providerProblems.push(`answer ${row.id}: written by call ${serial ?? '?'} for ${call?.tag ?? '?'}, answers ${question?.client_id ?? '?'}`);
      continue;
    }
    const others = (callsByTag.get(question.client_id) ?? []).filter((c) => c !== call);
    if (!others.length) continue;
    askedAgain.messages++;
    const all = callsByTag.get(question.client_id)!;
    for (const other of others) {
      extraCalls.push({ call: other, retriedAt: all.find((c) => c.serial > other.serial)?.startedAt });
      if (other.closedEarly) askedAgain.cutOffCalls++;
      else askedAgain.completedNotStoredCalls++;
    }
  }

  const distinctConversations = new Set(rows.map((r) => r.conversation)).size;
  const storedUnacknowledged = journal.messages.filter((m) => m.visitorMessageIds.size === 0 && (byClient.get(m.clientId) ?? []).some((r) => r.role === 'visitor')).length;
  const clientIdsInTwoConversations = [...byClient.values()].filter((list) => new Set(list.map((r) => r.conversation)).size > 1).length;

  const checks: Check[] = [
    {
      name: 'every acknowledged visitor message is stored exactly once',
      pass: visitorProblems.length === 0,
      detail: `${acknowledged.length} acknowledged (meta received), ${visitorProblems.length} not stored exactly once under the id the visitor was told`,
      examples: show(visitorProblems),
    },
    {
      name: 'every acknowledged agent reply is stored exactly once',
      pass: replyProblems.length === 0,
      detail: `${sent.length} acknowledged (200 with a message id), ${replyProblems.length} not stored exactly once under that id`,
      examples: show(replyProblems),
    },
    {
      name: 'no visitor message was answered twice',
      pass: answerProblems.length === 0,
      detail: `${answersTo.size} visitor messages answered; ${answerProblems.length} with two answers stored, two answer ids sent, or a sent answer that is not the stored one`,
      examples: show(answerProblems),
    },
    {
      name: 'no AI reply was generated twice',
      pass: providerProblems.length === 0,
      detail:
        `${aiAnswers} AI answers stored, each by one provider call made for its own message; ${askedAgain.messages} messages needed another call ` +
        `(${askedAgain.cutOffCalls} earlier calls cut off by their caller, ${askedAgain.completedNotStoredCalls} finished but never stored)`,
      examples: show(providerProblems),
    },
  ];
  return {
    checks,
    extraCalls,
    figures: {
      messagesStored: rows.length,
      conversations: distinctConversations,
      acknowledgedVisitorMessages: acknowledged.length,
      acknowledgedAgentReplies: sent.length,
      storedUnacknowledged,
      clientIdsInTwoConversations,
      aiAnswersStored: aiAnswers,
      providerCalls: calls.length,
      askedAgain,
    },
  };
}
