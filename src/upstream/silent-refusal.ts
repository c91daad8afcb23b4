import type { TLSSocket } from 'node:tls';

/** The code of a connection the upstream closed after the handshake without answering a byte. */
export const SILENT_REFUSAL = 'ERR_TLS_CLOSED_BEFORE_ANSWER';

/**
 * With TLS 1.3 a server checks the client's certificate after the client's side of the handshake
 * is done: an upstream that requires one, or does not trust the one presented, then closes the
 * connection, often without a TLS alert vigil could read. Seen from vigil that is "other side
 * closed", a `connect` failure, which pages the upstream's on-call for what vigil's operator must
 * fix. A new connection closed before its first answer byte is therefore failed with this code
 * (reason `tls`); once an answer arrived, a close is the keep-alive's ordinary end.
 */
export function failSilentRefusal(socket: TLSSocket): void {
  const onReadable = () => {
    if (socket.readableLength === 0) return;
    socket.off('readable', onReadable);
    socket.off('end', onEnd);
  };
  const onEnd = () => {
    socket.off('readable', onReadable);
    const message =
      'the upstream closed the connection after the TLS handshake without answering: it requires a client certificate (tls.cert_file, tls.key_file) or refused the one vigil presented';
    socket.destroy(Object.assign(new Error(message), { code: SILENT_REFUSAL }));
  };
  socket.on('readable', onReadable);
  socket.once('end', onEnd);
}
