/*
 * Where the participant page keeps its bearer token: in the browser's local storage, one per
 * workshop (`workshop-participant:<workshop_id>`), so a reload of the tab, or the phone waking
 * the next morning, keeps the person in. Never in a cookie or the address. The console hands its
 * own token over here when it sends a participant of a workshop on to that workshop's page.
 */

const PREFIX = 'workshop-participant:';
/** Where storage is refused (some private modes), tokens live as long as the page. */
const inMemory = new Map<string, string>();

export function takeToken(workshopId: string): string | null {
  try {
    return localStorage.getItem(PREFIX + workshopId) ?? inMemory.get(workshopId) ?? null;
  } catch {
    return inMemory.get(workshopId) ?? null;
  }
}

export function keepToken(workshopId: string, token: string): void {
  inMemory.set(workshopId, token);
  try {
    localStorage.setItem(PREFIX + workshopId, token);
  } catch {
    // Kept in memory only.
  }
}

export function forgetToken(workshopId: string): void {
  inMemory.delete(workshopId);
  try {
    localStorage.removeItem(PREFIX + workshopId);
  } catch {
    // Nothing was stored.
  }
}

/** The workshops this browser keeps a token for. */
export function keptWorkshops(): Array<{ workshopId: string; token: string }> {
  const kept = new Map(inMemory);
  try {
    for (let index = 0; index < localStorage.length; index++) {
      const key = localStorage.key(index);
      if (key?.startsWith(PREFIX)) kept.set(key.slice(PREFIX.length), localStorage.getItem(key)!);
    }
  } catch {
    // Only those in memory.
  }
  return [...kept].map(([workshopId, token]) => ({ workshopId, token }));
}

/** Where a workshop's waiting writes are kept, beside its token. */
export function outboxKey(workshopId: string): string {
  return `workshop-participant-outbox:${workshopId}`;
}
