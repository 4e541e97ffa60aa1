import { strict as assert } from 'node:assert';
import { Deployment } from '../support/cluster/deployment';
import type { ClusterNode } from '../support/cluster/node';
import { eventually } from '../support/eventually';
import { request } from '../support/http';
import { cliOk } from '../support/processes';
import { SmtpSink, type ReceivedMail } from '../support/smtpSink';
import { postStream } from '../support/sse';

// Three seconds: long enough for a heartbeat to take the line first, short enough to wait for.
const DELAY_MINUTES = '0.05';

interface FollowUpRow {
  recipient: string;
  attempts: number;
  sent_at: Date | null;
  mail_id: string;
}

/**
 * The offline follow-up (docs/routing.md): an agent line the visitor did not receive is emailed once
 * to the email they left, through a real SMTP server; its link continues the conversation; and a
 * sender killed in the middle of the SMTP dialogue is replaced without a second mail.
 */
describe('offline email follow-up across web processes', function () {
  this.timeout(240_000);
  let deployment: Deployment;
  let sink: SmtpSink;
  let key: string;
  let agentId: number;
  let ip = 0;

  before(async () => {
    sink = await SmtpSink.start();
    deployment = await Deployment.create();
    const env = { SMTP_URL: sink.url, MAIL_FROM: 'Shop support <help@shop.test>', OFFLINE_FOLLOWUP_MINUTES: DELAY_MINUTES, VISITOR_POLL_SECONDS: '5' };
    await Promise.all([deployment.start('mail-a', env), deployment.start('mail-b', env)]);
    await deployment.settled();
    const { company } = (await cliOk(['workspace', 'create', '--name', 'Follow Shop', '--plan', 'pro'], deployment.env())) as { company: { id: number } };
    const { chatbot } = (await cliOk(['chatbot', 'create', '--company', String(company.id), '--name', 'Helper'], deployment.env())) as { chatbot: { public_key: string } };
    const { user } = (await cliOk(['user', 'create', '--company', String(company.id), '--email', 'kim@follow.test', '--password', 'password-123', '--name', 'Kim', '--role', 'agent'], deployment.env())) as { user: { id: number } };
    key = chatbot.public_key;
    agentId = user.id;
  });
  after(async () => {
    await deployment?.destroy();
    await sink?.close();
  });

  const node = (): ClusterNode => deployment.live()[0]!;
  const widget = (path: string, options: Parameters<typeof request>[2] = {}) =>
    request('GET', `/widget/${key}${path}`, { baseUrl: node().url, ...options, headers: { 'X-Forwarded-For': `10.24.0.${++ip}`, ...options.headers } });

  /** A visitor's first message (with the email a pre-chat form gave, if any): their conversation's id. */
  async function visitorWrites(visitor: string, email?: string): Promise<string> {
    const body = { visitor_id: visitor, message: 'Is my order on its way?', ...(email && { meta: { visitor: { email } } }) };
    const reply = await postStream(`/widget/${key}/stream`, body, { 'X-Forwarded-For': `10.24.1.${++ip}` }, node().url);
    assert.equal(reply.events[0]?.event, 'meta', JSON.stringify(reply.events));
    return reply.events[0]!.data.conversation_id as string;
  }

  async function agentReplies(conversationId: string, text: string): Promise<void> {
    const answer = await node().ask('conversation', conversationId, { type: 'agentReply', userId: agentId, text });
    assert.ok('value' in answer, JSON.stringify(answer));
  }

  const followUps = (conversationId: string) =>
    deployment.query<FollowUpRow>(
      `SELECT f.recipient, f.attempts, f.sent_at, f.mail_id FROM offline_followups f JOIN conversations c ON c.id = f.conversation_id WHERE c.public_id = $1 ORDER BY f.id`,
      [conversationId],
    );
  const mailsTo = (address: string): ReceivedMail[] => sink.accepted.filter((mail) => mail.to.includes(address));
  const linkIn = (mail: ReceivedMail): string => {
    const found = /http:\/\/parley\.test\/chat\/[\w-]+#parley-continue=([\w.-]+)/.exec(mail.text);
    assert.ok(found, `no link in:\n${mail.text}`);
    return found[1]!;
  };

  it('mails an unseen agent line once to the email the visitor left, and its link continues the conversation on another device', async () => {
    const conversationId = await visitorWrites('visitor-gone', 'gone@visitor.test');
    await agentReplies(conversationId, 'Your parcel left our warehouse this morning.');

    const [mail] = await eventually(async () => mailsTo('gone@visitor.test'), (mails) => mails.length > 0, 60_000);
    assert.equal(mail!.subject, 'New reply from Follow Shop');
    assert.match(mail!.text, /Your parcel left our warehouse this morning\./);
    const [row] = await followUps(conversationId);
    assert.equal(mail!.messageId, `<followup-${row!.mail_id}@parley.test>`);
    assert.ok(row!.sent_at, 'marked sent');

    // The link's page, then the widget on a device the conversation has never seen.
    const token = linkIn(mail!);
    const page = await request('GET', `/chat/${key}`, { baseUrl: node().url });
    assert.equal(page.status, 200);
    assert.match(String(page.body), new RegExp(`widget\\.js" data-key="${key}"`));
    const forged = await widget('/conversation', { headers: { 'X-Visitor-Id': 'phone-of-gone', 'X-Continue': `${token.slice(0, -2)}AA` } });
    assert.equal(forged.status, 422);
    assert.ok(forged.body.errors.continue, JSON.stringify(forged.body));
    const opened = await widget('/conversation', { headers: { 'X-Visitor-Id': 'phone-of-gone', 'X-Continue': token } });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal(opened.body.conversation_id, conversationId);
    assert.ok(opened.body.messages.some((m: { role: string; content: string }) => m.role === 'agent' && /warehouse/.test(m.content)));

    const reply = await postStream(`/widget/${key}/stream`, { visitor_id: 'phone-of-gone', conversation_id: conversationId, message: 'Thanks, when will it arrive?' }, { 'X-Forwarded-For': `10.24.2.${++ip}` }, node().url);
    assert.equal(reply.events[0]?.data.conversation_id, conversationId, JSON.stringify(reply.events));
    const lines = await deployment.query<{ role: string; content: string }>(
      'SELECT m.role, m.content FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE c.public_id = $1 ORDER BY m.id',
      [conversationId],
    );
    assert.deepEqual(lines.filter((line) => line.role === 'visitor').map((line) => line.content), ['Is my order on its way?', 'Thanks, when will it arrive?']);
    assert.equal(mailsTo('gone@visitor.test').length, 1, 'mailed once');
  });

  it('mails nobody whose widget took the line, nor a visitor who left no email', async () => {
    const seen = await visitorWrites('visitor-here', 'here@visitor.test');
    const anonymous = await visitorWrites('visitor-anonymous');
    await agentReplies(seen, 'Here is your answer.');
    await agentReplies(anonymous, 'Here is your answer too.');
    // The widget's heartbeat hands the line over: delivered, so nothing is mailed.
    const beat = await request('POST', `/widget/${key}/heartbeat`, { baseUrl: node().url, body: { visitor_id: 'visitor-here', url: 'https://shop.test/', conversation_id: seen }, headers: { 'X-Forwarded-For': `10.24.3.${++ip}` } });
    assert.equal(beat.status, 200, JSON.stringify(beat.body));
    assert.ok(beat.body.messages.some((m: { content: string }) => m.content === 'Here is your answer.'));

    // A control written after both: once its mail is in, both others' reminders have run too.
    const control = await visitorWrites('visitor-control', 'control@visitor.test');
    await agentReplies(control, 'Control line.');
    await eventually(async () => mailsTo('control@visitor.test'), (mails) => mails.length === 1, 60_000);
    assert.deepEqual(mailsTo('here@visitor.test'), []);
    assert.deepEqual(await followUps(seen), []);
    assert.deepEqual(await followUps(anonymous), []);
  });

  it('gives a mail up at once when the mail server refuses the recipient for good (5xx)', async () => {
    sink.refuse('nobody@visitor.test');
    const conversationId = await visitorWrites('visitor-bounced', 'nobody@visitor.test');
    await agentReplies(conversationId, 'Your invoice is attached.');
    const [row] = await eventually(
      () => deployment.query<{ failed_at: Date | null; attempts: number; last_error: string | null }>(
        'SELECT f.failed_at, f.attempts, f.last_error FROM offline_followups f JOIN conversations c ON c.id = f.conversation_id WHERE c.public_id = $1',
        [conversationId],
      ),
      (rows) => rows[0]?.failed_at != null,
      60_000,
    );
    assert.equal(row!.attempts, 1, 'no retry after a permanent refusal');
    assert.match(row!.last_error ?? '', /550/);
    assert.equal(sink.refused.get('nobody@visitor.test'), 1);
  });

  it('sends exactly one mail when the sending node is killed while the SMTP server holds its DATA', async () => {
    const conversationId = await visitorWrites('visitor-killed', 'killed@visitor.test');
    const held = sink.holdNextMail();
    await agentReplies(conversationId, 'We refunded your order.');
    const first = await held;
    assert.deepEqual(first.to, ['killed@visitor.test']);
    const sender = await deployment.ownerOf('conversation', conversationId);
    const abandoned = sink.abandoned();
    await sender.kill('SIGKILL');
    await abandoned;
    assert.equal(mailsTo('killed@visitor.test').length, 0, 'the held mail was never accepted');

    // The survivor takes the conversation over and, once the dead sender's lease is over, sends the same mail.
    const sent = await eventually(() => followUps(conversationId), (rows) => rows[0]?.sent_at != null, 150_000);
    const mails = mailsTo('killed@visitor.test');
    assert.equal(mails.length, 1, 'one mail after recovery');
    assert.equal(mails[0]!.messageId, first.messageId, 'the same mail, by its Message-ID');
    assert.match(mails[0]!.text, /We refunded your order\./);
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.attempts, 2);
  });
});
