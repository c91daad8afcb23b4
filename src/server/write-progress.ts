import type { Socket } from 'node:net';

/**
 * How far a socket's writes have gone: `taken` counts the bytes of the writes that completed (the
 * kernel took them), `waiting` those written but not yet taken. `bytesWritten` counts every byte
 * handed to the socket, taken or not, and `writableLength` those not yet taken, so their difference
 * grows only when a write completes: a client that reads nothing stops it.
 */
export function writeProgress(socket: Socket): { taken: number; waiting: number } {
  const waiting = socket.writableLength;
  return { taken: (socket.bytesWritten ?? 0) - waiting, waiting };
}
