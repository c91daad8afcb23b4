import http from 'node:http';

/** One notification a webhook receiver was sent by Alertmanager. */
export interface Posted {
  at: number;
  receiver: string;
  status: string;
  groupKey: string;
  alerts: Array<{ status: string; labels: Record<string, string> }>;
}

/** A webhook receiver that keeps what it is sent: a stand-in for the pager, the heartbeat, vigil's sink. */
export function standIn(): { server: http.Server; posts: Posted[]; url: () => string } {
  const posts: Posted[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        posts.push({ at: Date.now(), ...(JSON.parse(body) as Omit<Posted, 'at'>) });
      } catch {
        // Not a notification: nothing to keep.
      }
      res.end();
    });
  });
  return { server, posts, url: () => `http://127.0.0.1:${(server.address() as { port: number }).port}/` };
}

/** Whether any notification in `posts` carries the alert `alertname` with these labels, in this status. */
export const notified = (posts: readonly Posted[], alertname: string, labels: Record<string, string> = {}, status = 'firing'): boolean =>
  posts.some((p) =>
    p.alerts.some((a) => a.status === status && a.labels.alertname === alertname && Object.entries(labels).every(([k, v]) => a.labels[k] === v)),
  );
