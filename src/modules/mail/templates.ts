import { dir, t } from '../../i18n/messages';
import { escapeHtml } from '../../lib/html-escape';

/** What a mail says: the same words make its text and its HTML. */
export interface MailContent {
  greeting: string;
  paragraphs: string[];
  /** The one thing the mail asks the reader to do: a link, shown as a button in HTML. */
  action?: { label: string; url: string };
  /** Why the reader gets this mail. */
  footer?: string;
}

/**
 * The text and HTML bodies of a mail written in `lang` (its words come from the `mail` messages,
 * in that language); the HTML says its language and direction (Arabic is right to left), and
 * everything that came from people is escaped in it.
 */
export function renderMail(lang: string, content: MailContent): { text: string; html: string } {
  const text = [
    content.greeting,
    ...content.paragraphs,
    ...(content.action ? [t(lang, 'mail.layout.action_line', content.action)] : []),
    ...(content.footer ? [content.footer] : []),
  ].join('\n\n');
  const paragraph = (words: string) => `<p>${escapeHtml(words).replaceAll('\n', '<br>')}</p>`;
  const html = [
    `<div lang="${escapeHtml(lang)}" dir="${dir(lang)}" style="font: 16px/1.5 system-ui, sans-serif; color: #222; max-width: 36rem; text-align: start">`,
    paragraph(content.greeting),
    ...content.paragraphs.map(paragraph),
    ...(content.action
      ? [
          `<p><a href="${escapeHtml(content.action.url)}" style="display: inline-block; padding: 0.6em 1.2em; background: #2f5bd3; color: #fff; border-radius: 4px; text-decoration: none">${escapeHtml(content.action.label)}</a></p>`,
        ]
      : []),
    ...(content.footer ? [`<p style="color: #777; font-size: 13px">${escapeHtml(content.footer)}</p>`] : []),
    '</div>',
  ].join('\n');
  return { text: `${text}\n`, html };
}
