/**
 * The device's IANA time zone, sent when an account or a guest is made so that the daily digest
 * comes at 07:00 on the person's clock (docs/i18n.md#which-language); undefined where the browser
 * does not say, and the server then keeps its default.
 */
export function deviceTimeZone(): string | undefined {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
  } catch {
    return undefined;
  }
}
