import { privacyOf, type Privacy, type WorkshopState } from 'workshop-sdk/live';

/*
 * What both pages show of the current step the same way: the notices of what it keeps people from
 * seeing of each other, and the timer's clock.
 */

/** Shows the notices of what the current step keeps participants from seeing of each other (the page's privacy notices); answers it. */
export function showPrivacy(state: WorkshopState): Privacy {
  const privacy = privacyOf(state);
  document.getElementById('private-notice')!.hidden = privacy.cardsVisible !== 'own';
  document.getElementById('anonymous-notice')!.hidden = privacy.authors === 'shown';
  return privacy;
}

/** `m:ss`, or `h:mm:ss` from an hour up; rounded up, so the last second shows `0:01`, not `0:00`. */
export function clockText(ms: number): string {
  const total = Math.ceil(Math.max(0, ms) / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor(total / 60) % 60, total % 60];
  const pad = (n: number) => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${m}:${pad(s)}`;
}
