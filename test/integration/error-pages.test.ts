import { PassThrough } from 'node:stream';
import { Router } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server.js';
import { listen, type RunningHttp } from '../../src/server/http-server.js';
import { createLogger } from '../../src/support/logger.js';
import { appDeps } from '../helpers/app-deps.js';

/**
 * Errors raised while routing (a malformed URI, a file that is not there, a route that throws) are
 * answered without a stack or a path of the machine, whatever NODE_ENV says: `npm start` sets none,
 * and express's own handler shows both unless it is "production". The /ui/ files are served only
 * once `npm run build` has made them.
 */
let server: RunningHttp | undefined;
let logged = '';
const savedEnv = process.env.NODE_ENV;

beforeAll(async () => {
  // express reads NODE_ENV when an app is made.
  delete process.env.NODE_ENV;
  const routes = Router();
  routes.get('/things/:id', (_req, res) => void res.send('a thing\n'));
  routes.get('/broken', () => {
    throw new Error(`cannot open ${process.cwd()}/secret-dir/file`);
  });
  const out = new PassThrough();
  out.on('data', (c: Buffer) => (logged += c.toString()));
  const app = createApp(appDeps({ log: createLogger('info', 'json', out), routes }));
  server = await listen(app, '127.0.0.1:0');
});

afterAll(async () => {
  await server?.close();
  if (savedEnv === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = savedEnv;
});

const LEAKS = [/\bat \S+ \(/, /node_modules/, new RegExp(process.cwd().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), /\/work\//, /Error:/];

describe('error answers', () => {
  it.each([
    ['a malformed URI under /ui/', '/ui/%E0%A4%A', [400, 404]],
    ['a file that is not there under /ui/', '/ui/nothing.js', [404]],
    ['a malformed URI in a route parameter', '/things/%E0%A4%A', [400]],
    ['a route that throws', '/broken', [500]],
  ])('%s: a status and its name, no stack, no path', async (_what, path, statuses) => {
    const res = await fetch(`${server!.url}${path}`);
    expect(statuses).toContain(res.status);
    const body = await res.text();
    for (const leak of LEAKS) expect(body).not.toMatch(leak);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(body)).toEqual({ error: expect.stringMatching(/^[a-z ]+$/) as unknown });
  });

  it('logs a failure of its own (a 5xx) with its message, and a client error not at all', async () => {
    logged = '';
    await fetch(`${server!.url}/broken`);
    await fetch(`${server!.url}/things/%E0%A4%A`);
    const lines = logged.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'error', msg: 'cannot answer a request', status: 500 });
    expect(lines[0]).not.toMatch(/\bat \S+ \(/);
  });
});
