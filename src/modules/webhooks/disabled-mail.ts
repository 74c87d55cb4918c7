import type { Db } from '../../db/database';
import { t } from '../../i18n/messages';
import { mailDateTime, mailLanguage } from '../mail/language';
import { queueMail } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { adminAddresses } from './endpoints-repo';

/**
 * Tells each admin of the organization that an endpoint was disabled, in their locale, the moment
 * it began failing on their clock.
 */
export async function mailAdmins(
  tx: Db,
  endpoint: { organizationId: string; url: string; failingSince: string | null },
  publicUrl: string,
  hours: number,
): Promise<void> {
  const request = `PUT ${publicUrl}/v1/organizations/${endpoint.organizationId}/webhooks/<id> {"enabled": true}`;
  for (const admin of await adminAddresses(tx, endpoint.organizationId)) {
    const lang = mailLanguage(admin.locale);
    const since = mailDateTime(lang, admin.timeZone, endpoint.failingSince ?? new Date(), true);
    await queueMail(tx, {
      to: admin.email,
      subject: t(lang, 'mail.webhook_disabled.subject'),
      ...renderMail(lang, {
        greeting: t(lang, 'mail.greeting.named', { name: admin.name }),
        paragraphs: [
          t(lang, 'mail.webhook_disabled.body', { url: endpoint.url, since, hours }),
          t(lang, 'mail.webhook_disabled.given_up'),
          t(lang, 'mail.webhook_disabled.enable', { request }),
        ],
      }),
    });
  }
}
