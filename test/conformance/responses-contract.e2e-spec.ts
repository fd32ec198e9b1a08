/**
 * /v1/responses request contract: `input_image` parts are taken as chat takes images (user
 * messages; a model without image support answers 400), and `conversation` / `prompt` are refused
 * with a 400 naming the field instead of being silently ignored.
 */
import type OpenAI from 'openai';
import request from 'supertest';
import { pngBytes } from '../fakes';
import type { FakeOpenAI } from '../fakes';
import type { TestApp } from '../support/test-app';
import { backendKind } from '../support/test-env';
import { Conformance } from './openai-schema';
import { OpenAiGateway } from './openai-gateway';

describe(`/v1/responses request contract (${backendKind()})`, () => {
  const spec = new Conformance();
  let gw: OpenAiGateway;
  let openai: FakeOpenAI;
  let t: TestApp;
  let apiKey: string;
  let client: OpenAI;

  beforeAll(async () => {
    spec.compile('Response'); // before any SDK connection opens (compiling takes seconds)
    gw = await OpenAiGateway.start();
    ({ openai, t, apiKey, client } = gw);
  });
  afterEach(() => openai.reset());
  afterAll(async () => {
    await gw?.close();
  });

  const post = (body: Record<string, unknown>) =>
    request(t.url).post('/v1/responses').set('Authorization', `Bearer ${apiKey}`).send(body);

  it('input_image in a user message reaches the upstream as an image part, beside the text', async () => {
    const png = `data:image/png;base64,${pngBytes().toString('base64')}`;
    openai.enqueue({ text: 'A single pixel.' });
    const res = await client.responses.create({
      model: 'gpt-4o-mini',
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What is in this image?' },
            { type: 'input_image', image_url: png, detail: 'low' },
          ],
        },
      ],
    });
    expect(res.output_text).toBe('A single pixel.');
    expect(spec.check('response with input_image', 'Response', res)).toEqual([]);
    const sent = openai.lastRequest?.body.messages as { role: string; content: unknown }[];
    expect(sent[sent.length - 1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this image?' },
        { type: 'image_url', image_url: { url: png, detail: 'low' } },
      ],
    });
  });

  it('input_image refusals: a model without images, a file_id, a bad URL — 400 naming the field, nothing upstream', async () => {
    const png = `data:image/png;base64,${pngBytes().toString('base64')}`;
    const image = (part: Record<string, unknown>) => [
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'x' },
          { type: 'input_image', ...part },
        ],
      },
    ];
    const cases: [Record<string, unknown>, string][] = [
      [{ model: 'local', input: image({ image_url: png }) }, 'input'],
      [{ model: 'gpt-4o-mini', input: image({ file_id: 'file-abc' }) }, 'input[0].content[1].file_id'],
      [{ model: 'gpt-4o-mini', input: image({ image_url: 'ftp://x/y.png' }) }, 'input[0].content[1].image_url'],
      [{ model: 'gpt-4o-mini', input: image({ image_url: png, detail: 'ultra' }) }, 'input[0].content[1].detail'],
    ];
    for (const [body, param] of cases) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(res.body.error.param).toBe(param);
    }
    expect(openai.requests).toHaveLength(0);
  });

  it('conversation and prompt are refused with 400 naming the field (never silently ignored)', async () => {
    for (const [field, value] of [
      ['conversation', 'conv_123'],
      ['conversation', { id: 'conv_123' }],
      ['prompt', { id: 'pmpt_123', version: '2' }],
    ] as const) {
      const res = await post({ model: 'gpt-4o-mini', input: 'hi', [field]: value });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ param: field, code: 'unsupported_value' });
    }
    expect(openai.requests).toHaveLength(0);
  });
});
