import type { Request, Response } from 'express';
import { RequestContext } from '@app/common';
import { capturedResponse, watchModelResponse } from './response-capture';
import type { RequestLogSettings, TeamLogSettings } from './request-log.settings';

/** A response whose write/end record what reached them (the socket side of a real response). */
function fakeResponse(): { res: Response; written: string[] } {
  const written: string[] = [];
  const res = {
    write(chunk: unknown) {
      written.push(String(chunk));
      return true;
    },
    end(chunk?: unknown) {
      if (chunk !== undefined) written.push(String(chunk));
      return res;
    },
  };
  return { res: res as unknown as Response, written };
}

function request(path: string, teamId: string | undefined, body: unknown): Request {
  return { method: 'POST', route: { path }, caller: teamId ? { teamId } : undefined, body } as unknown as Request;
}

function settings(known: Record<string, TeamLogSettings['level']>): RequestLogSettings {
  return {
    peek: (teamId: string) =>
      known[teamId] ? ({ level: known[teamId], retentionMs: 1, bodyRetentionMs: 1 } as TeamLogSettings) : undefined,
  } as unknown as RequestLogSettings;
}

describe('watchModelResponse (decided at the first write)', () => {
  const s = settings({ full: 'full', meta: 'metadata' });

  it('captures a model call of a team at `full`, and of a team whose settings are not cached yet', () => {
    for (const team of ['full', 'not-cached']) {
      const { res, written } = fakeResponse();
      const ctx = new RequestContext('r1', 0, res);
      watchModelResponse(request('/v1/chat/completions', team, {}), res, ctx, s, 1024);
      res.end('{"answer":42}');
      expect(written).toEqual(['{"answer":42}']);
      expect(Buffer.concat(capturedResponse(res)!.chunks).toString()).toBe('{"answer":42}');
    }
  });

  it('keeps no bytes for a team at `metadata`, but times the first byte of a stream', () => {
    const { res, written } = fakeResponse();
    const ctx = new RequestContext('r2', 0, res);
    watchModelResponse(request('/v1/chat/completions', 'meta', { stream: true }), res, ctx, s, 1024);
    expect(ctx.ttftMs).toBeNull();
    res.write('data: {}\n\n');
    res.end();
    expect(written).toEqual(['data: {}\n\n']);
    expect(capturedResponse(res)).toBeUndefined();
    expect(ctx.ttftMs).toEqual(expect.any(Number));
  });

  it('leaves other routes alone: their own write and end are put back at the first write', () => {
    const { res, written } = fakeResponse();
    const own = res.end;
    const ctx = new RequestContext('r3', 0, res);
    watchModelResponse(request('/api/v1/knowledge-bases', 'full', {}), res, ctx, s, 1024);
    expect(res.end).not.toBe(own);
    res.end('{}');
    expect(res.end).toBe(own);
    expect(written).toEqual(['{}']);
    expect(capturedResponse(res)).toBeUndefined();
  });

  it('cuts the captured bytes at the limit', () => {
    const { res } = fakeResponse();
    watchModelResponse(request('/v1/embeddings', 'full', {}), res, new RequestContext('r4', 0, res), s, 4);
    res.end('0123456789');
    const c = capturedResponse(res)!;
    expect(Buffer.concat(c.chunks).toString()).toBe('0123');
    expect(c.truncated).toBe(true);
  });
});
