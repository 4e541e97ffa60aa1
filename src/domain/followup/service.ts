import type { AppContext } from '../../context';
import { FollowUpLinks } from './link';
import { SmtpMailer, type Mailer } from './mailer';
import { FollowUpRecords } from './records';

/** What the offline follow-up uses in one process: its rows, its links, and the mailer (null: `SMTP_URL` unset, follow-up off). */
export interface FollowUps {
  records: FollowUpRecords;
  links: FollowUpLinks;
  mailer: Mailer | null;
  delayMs: number;
  appUrl: string;
}

const services = new WeakMap<AppContext, FollowUps>();

/** One per process (per context), so the "off" notice is logged once. */
export function followUpsOf(ctx: AppContext): FollowUps {
  let found = services.get(ctx);
  if (!found) {
    const { mail, appKey, appUrl } = ctx.config;
    if (!mail.smtpUrl) ctx.logger.info('SMTP_URL is not set: the offline email follow-up is off (docs/routing.md)');
    found = {
      records: new FollowUpRecords(ctx.db.sequelize),
      links: new FollowUpLinks(appKey),
      mailer: mail.smtpUrl ? new SmtpMailer(mail.smtpUrl, mail.from) : null,
      delayMs: mail.delayMinutes * 60_000,
      appUrl,
    };
    services.set(ctx, found);
  }
  return found;
}

/** The page the follow-up's link opens: the chatbot's hosted chat, the token in the fragment (never sent to a server in a request line or Referer). */
export const continueUrl = (appUrl: string, publicKey: string, token: string): string => `${appUrl}/chat/${encodeURIComponent(publicKey)}#parley-continue=${token}`;
