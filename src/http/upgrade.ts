import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_STATUS, errorBody } from './errors';

/**
 * Answers an HTTP upgrade that will not be taken with the API's error body (shutting down,
 * no such endpoint, a failure), then ends the connection.
 */
export function refuseUpgrade(
  socket: Duplex,
  code: 'not_found' | 'service_unavailable' | 'internal_error',
  message: string,
): void {
  const status = ERROR_STATUS[code];
  const body = JSON.stringify(errorBody(code, message));
  const reason = STATUS_CODES[status] ?? 'Error';
  socket.on('error', () => {});
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    () => socket.destroy(),
  );
}
