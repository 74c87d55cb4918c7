/*
 * The screen's invitation while people may join: the participant page's address, a QR code of the
 * workshop's join link (`${PUBLIC_URL}/join#key=…`, which the server hands out with the code and
 * which no wrong codes typed at the venue can lock out), and the code in large digits for those
 * who type it (the QR code itself is drawn by `shared/qr.ts`). The participant page shares the code's
 * formatting.
 */

/** The join address as people type it: no scheme (`workshops.example.com/join`). */
export function joinAddress(publicUrl: string): string {
  return `${publicUrl.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '')}/join`;
}

/** How many digits an access code has. */
export const CODE_DIGITS = 9;

/**
 * The digits of a typed code, as ASCII: Arabic phone keyboards type Arabic-Indic digits (٠–٩,
 * or the Persian ۰–۹), which the code means just the same.
 */
export function codeDigits(typed: string): string {
  return typed
    .replace(/[\u0660-\u0669]/g, (digit) => String(digit.charCodeAt(0) - 0x660))
    .replace(/[\u06f0-\u06f9]/g, (digit) => String(digit.charCodeAt(0) - 0x6f0))
    .replace(/\D/g, '');
}

/** `123456789` → `123-456-789`: digits in threes read and type without slips. */
export function codeText(code: string): string {
  return code.replace(/(\d{3})(?=\d)/g, '$1-');
}
