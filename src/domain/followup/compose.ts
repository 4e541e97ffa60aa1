import type { OutgoingMail } from './mailer';
import type { FollowUpLine } from './records';

// The follow-up mail's words: who wrote, what they wrote, and the link back.

export interface FollowUpContent {
  to: string;
  /** The workspace's name, which the visitor knows the site by. */
  workspace: string;
  /** The chatbot's name as the widget shows it. */
  chatbot: string;
  lines: FollowUpLine[];
  link: string;
  /** `offline_followups.mail_id` and the host of APP_URL: a stable Message-ID. */
  mailId: string;
  host: string;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function composeFollowUp(content: FollowUpContent): OutgoingMail {
  const { workspace, chatbot, lines, link } = content;
  const intro = `You have a reply from ${workspace} that you have not seen yet:`;
  const outro = 'Continue the conversation here (the link works for 7 days):';
  const text = [intro, '', ...lines.map((line) => `> ${line.content.replace(/\n/g, '\n> ')}`), '', outro, link, '', `- ${chatbot}`].join('\n');
  const html = [
    `<p>${escapeHtml(intro)}</p>`,
    ...lines.map((line) => `<blockquote style="margin:0 0 12px;padding:8px 12px;border-left:3px solid #6366f1;white-space:pre-wrap">${escapeHtml(line.content)}</blockquote>`),
    `<p>${escapeHtml(outro)}</p>`,
    `<p><a href="${escapeHtml(link)}">Continue the conversation</a></p>`,
    `<p style="color:#64748b">${escapeHtml(chatbot)}</p>`,
  ].join('\n');
  return { to: content.to, subject: `New reply from ${workspace}`, text, html, messageId: `<followup-${content.mailId}@${content.host}>` };
}
