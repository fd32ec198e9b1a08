/**
 * The gateway on the fake OpenAI upstream with one funded team, as the conformance suites use it
 * (test-only): the official SDK client, Bearer-authenticated supertest helpers and an SSE reader.
 */
import OpenAI from 'openai';
import request from 'supertest';
import type { Clock } from '@app/common';
import { FakeOpenAI } from '../fakes';
import { AdminClient } from '../support/admin-client';
import { createTestApp, TestApp } from '../support/test-app';
import { parseSse, providerEnv, UPSTREAM_KEYS } from '../chat/chat-helpers';

export type Json = Record<string, unknown>;

export class OpenAiGateway {
  private constructor(
    readonly t: TestApp,
    readonly openai: FakeOpenAI,
    readonly admin: AdminClient,
    readonly apiKey: string,
    readonly client: OpenAI,
  ) {}

  /** One attempt per upstream call (the fault cases pin single failures). */
  static async start(opts: { env?: Record<string, string>; clock?: Clock } = {}): Promise<OpenAiGateway> {
    const openai = await FakeOpenAI.start({ apiKey: UPSTREAM_KEYS.openai });
    const t = await createTestApp({
      env: { ...providerEnv({ openai }), OPENAI_MAX_RETRIES: '0', ...opts.env },
      clock: opts.clock,
    });
    const admin = new AdminClient(t.url);
    const { apiKey } = await admin.teamWithKey(100);
    return new OpenAiGateway(t, openai, admin, apiKey, new OpenAI({ baseURL: `${t.url}/v1`, apiKey, maxRetries: 0 }));
  }

  post(path: string, body: unknown, key = this.apiKey): request.Test {
    return request(this.t.url)
      .post(path)
      .set('Authorization', `Bearer ${key}`)
      .send(body as object);
  }

  get(path: string, key = this.apiKey): request.Test {
    return request(this.t.url).get(path).set('Authorization', `Bearer ${key}`);
  }

  del(path: string, key = this.apiKey): request.Test {
    return request(this.t.url).delete(path).set('Authorization', `Bearer ${key}`);
  }

  /** A streamed POST (expects 200): its `data:` events as JSON, without [DONE]. */
  async sse(path: string, body: Json): Promise<Json[]> {
    const res = await this.post(path, body)
      .buffer(true)
      .parse((r, cb) => {
        let text = '';
        r.on('data', (c: Buffer) => (text += c.toString()));
        r.on('end', () => cb(null, text));
      });
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${String(res.body)}`);
    return parseSse(res.body as string)
      .filter((m) => m.data !== '[DONE]')
      .map((m) => JSON.parse(m.data) as Json);
  }

  async close(): Promise<void> {
    await this.t?.close();
    await this.openai?.close();
  }
}
