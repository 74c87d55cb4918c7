/*
 * The screen's invitation while people may join: the participant page's address, a QR code of it
 * with the access code in its fragment (which fills the code on the phone), and the code in
 * large digits for those who type it (the QR code itself is drawn by `qr.ts`). The participant
 * page shares the code's formatting.
 */

/** The address a QR code of the invitation opens: `${publicUrl}/join#code=123456789`. */
export function joinUrl(publicUrl: string, code: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/join#code=${encodeURIComponent(code)}`;
}

/** The join address as people type it: no scheme (`workshops.example.com/join`). */
export function joinAddress(publicUrl: string): string {
  return `${publicUrl.replace(/^[a-z]+:\/\//i, '').replace(/\/+$/, '')}/join`;
}

/** `123456789` → `123-456-789`: digits in threes read and type without slips. */
export function codeText(code: string): string {
  return code.replace(/(\d{3})(?=\d)/g, '$1-');
}
