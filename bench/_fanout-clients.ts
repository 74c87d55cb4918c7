/**
 * A child process of the fan-out bench holding many socket.io clients over loopback. Driven over
 * IPC: `connect` opens clients and joins them to the workshop (they close with the process). Once
 * each client of a group has received its k-th `step:changed`, it reports round k with the time of
 * the last receipt (`process.hrtime`: the same monotonic clock in every process of this machine).
 */
import { io, type Socket } from 'socket.io-client';

interface ConnectCommand {
  type: 'connect';
  group: string;
  url: string;
  workshopId: string;
  tokens: string[];
  concurrency: number;
}

interface Group {
  sockets: Socket[];
  /** How many clients have received their k-th step:changed, by k. */
  rounds: number[];
}

const groups = new Map<string, Group>();
const send = (message: unknown) => process.send!(message);

function connectOne(command: ConnectCommand, token: string, group: Group): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = io(command.url, {
      auth: { token },
      transports: ['websocket'],
      reconnection: false,
      forceNew: true,
      timeout: 60_000,
    });
    let received = 0;
    socket.on('step:changed', () => {
      const round = received++;
      const count = (group.rounds[round] ?? 0) + 1;
      group.rounds[round] = count;
      if (count === group.sockets.length)
        send({ type: 'round', group: command.group, round, at: process.hrtime.bigint().toString() });
    });
    socket.once('connect_error', reject);
    socket.once('connect', () => {
      socket.emit('join', { workshop_id: command.workshopId }, (ack: { ok: boolean }) => {
        if (!ack.ok) return reject(new Error(`join refused: ${JSON.stringify(ack)}`));
        group.sockets.push(socket);
        resolve();
      });
    });
  });
}

async function connectAll(command: ConnectCommand) {
  // A group may grow over several commands; broadcasts are only measured once it is complete.
  let group = groups.get(command.group);
  if (!group) {
    group = { sockets: [], rounds: [] };
    groups.set(command.group, group);
  }
  let next = 0;
  const worker = async () => {
    while (next < command.tokens.length) await connectOne(command, command.tokens[next++]!, group);
  };
  await Promise.all(Array.from({ length: command.concurrency }, worker));
  send({ type: 'connected', group: command.group, count: group.sockets.length });
}

process.on('message', (message: ConnectCommand) => {
  if (message.type === 'connect')
    connectAll(message).catch((err: Error) => send({ type: 'failed', group: message.group, error: err.message }));
});
send({ type: 'ready' });
