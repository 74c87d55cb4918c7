/*
 * The QR encoder of the `qrcode` package, imported alone by qr.ts (which draws the symbol itself
 * for the screen and the console). Declared here because the package's own types (@types/qrcode) bring in
 * Node's, which the browser pages are checked without.
 */
declare module 'qrcode/lib/core/qrcode.js' {
  export interface QRCode {
    /** The symbol's modules, `size` by `size`: a truthy value is a dark module. */
    modules: { size: number; get(row: number, col: number): number };
  }
  export function create(text: string, options?: { errorCorrectionLevel?: 'L' | 'M' | 'Q' | 'H' }): QRCode;
}
