/**
 * The ceiling for the fan-out bench: a bare Socket.IO server with no application code. `join`
 * puts the socket in a room and acks; `POST /broadcast` `{room, events: [[name, payload], ...]}`
 * emits those events to the room, as the app does for a step change. Prints "listening <port>".
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';

const httpServer = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/broadcast') {
    res.writeHead(404).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const { room, events } = JSON.parse(Buffer.concat(chunks).toString()) as {
      room: string;
      events: Array<[string, unknown]>;
    };
    for (const [name, payload] of events) io.to(room).emit(name, payload);
    res.writeHead(204).end();
  });
});
const io = new Server(httpServer, { serveClient: false });
io.on('connection', (socket) => {
  socket.on('join', (request: { workshop_id: string }, ack: (answer: unknown) => void) => {
    // The in-memory adapter joins at once.
    void socket.join(request.workshop_id);
    ack({ ok: true, seq: 0 });
  });
});
httpServer.listen(0, '127.0.0.1', () => console.log(`listening ${(httpServer.address() as AddressInfo).port}`));
process.on('SIGTERM', () => process.exit(0));
