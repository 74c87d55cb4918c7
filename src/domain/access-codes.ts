/*
 * A workshop's access code (docs/api.md#workshops): digits people type from the screen, shown in
 * threes. One length for the codes drawn, the join's check and the join page's hint.
 */

export const ACCESS_CODE_DIGITS = 9;

/**
 * A typed code as its ASCII digits: spaces and dashes dropped, and the Arabic-Indic (٠–٩) and
 * Persian (۰–۹) digits Arabic phone keyboards type read as the digits they are, on every path in
 * (the participant page, the SDK, any client).
 */
export function typedAccessCode(typed: string): string {
  return typed
    .replace(/[\s-]+/g, '')
    .replace(/[\u0660-\u0669]/g, (digit) => String(digit.charCodeAt(0) - 0x660))
    .replace(/[\u06f0-\u06f9]/g, (digit) => String(digit.charCodeAt(0) - 0x6f0));
}
