import type { Socket } from 'socket.io';

/** Longer than a broadcast takes to cross Redis between instances, even under load. */
const GUARD_MS = 5_000;

/** `2["event",{"seq":12,"workshop_id":"..."`: how every workshop event starts once encoded. */
const WORKSHOP_PACKET = /^2\d*\["[^"]+",\{"seq":(\d+),"workshop_id":"([^"]+)"/;

interface Mark {
  throughSeq: number;
  until: number;
}

type EngineWriter = (packets: Array<string | Buffer>, options: unknown) => void;
interface ClientInternals {
  writeToEngine: EngineWriter;
}

/**
 * Keeps a socket from receiving, right after it joined, a live event it already has. A join reads
 * the log up to some seq and answers with it; a broadcast from another instance that committed
 * before that read may still be on its way through Redis, and would arrive as a duplicate. For a
 * few seconds after each join, this socket's outgoing workshop events at or below the joined seq are
 * dropped. Broadcasts reach sockets through `client.writeToEngine` (Socket.IO writes one encoded
 * packet to every socket of a room), so that is where the filter sits; it is removed again once
 * every mark has expired, leaving idle sockets on Socket.IO's own path.
 */
export class ReplayGuard {
  private readonly marks = new WeakMap<Socket, Map<string, Mark>>();

  /** Drops this socket's events of `workshopId` numbered `throughSeq` or lower, for a while. */
  arm(socket: Socket, workshopId: string, throughSeq: number): void {
    let marks = this.marks.get(socket);
    if (!marks) {
      marks = new Map();
      this.marks.set(socket, marks);
      this.wrap(socket, marks);
    }
    marks.set(workshopId, { throughSeq, until: Date.now() + GUARD_MS });
  }

  /** Lifts the mark before a replay, so the replayed events themselves go through. */
  disarm(socket: Socket, workshopId: string): void {
    this.marks.get(socket)?.delete(workshopId);
  }

  private wrap(socket: Socket, marks: Map<string, Mark>) {
    const client = socket.client as unknown as ClientInternals;
    const write = client.writeToEngine;
    const unwrap = () => {
      delete (client as Partial<ClientInternals>).writeToEngine;
      this.marks.delete(socket);
    };
    client.writeToEngine = function guarded(packets, options) {
      const now = Date.now();
      for (const [workshopId, mark] of marks) if (mark.until <= now) marks.delete(workshopId);
      if (marks.size === 0) unwrap();
      else if (isStale(packets, marks)) return;
      write.call(this, packets, options);
    };
  }
}

function isStale(packets: Array<string | Buffer>, marks: Map<string, Mark>): boolean {
  const first = packets[0];
  if (packets.length !== 1 || typeof first !== 'string') return false;
  const match = WORKSHOP_PACKET.exec(first);
  if (!match) return false;
  const mark = marks.get(match[2]!);
  const seq = Number(match[1]);
  // seq 0 is outside the sequence (the workshop's removal): always delivered.
  return mark !== undefined && seq > 0 && seq <= mark.throughSeq;
}
