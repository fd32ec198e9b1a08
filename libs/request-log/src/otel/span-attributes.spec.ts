import * as incubating from '@opentelemetry/semantic-conventions/incubating';
import type { RequestLogEntity } from '../entities/request-log.entity';
import { isError, operationOf, spanAttributes, spanName } from './span-attributes';

function record(over: Partial<RequestLogEntity> = {}): RequestLogEntity {
  return {
    id: 'req_1',
    teamId: 'team_1',
    createdAt: 1_700_000_000_000,
    method: 'POST',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o-mini',
    servedModel: 'gpt-4o-mini-2024-07-18',
    provider: 'openai',
    attempts: 1,
    status: 200,
    errorCode: null,
    stream: true,
    inputTokens: 12,
    outputTokens: 5,
    cacheReadTokens: 0,
    costMicro: 1_500_000,
    latencyMs: 40,
    ttftMs: 10,
    keyPrefix: 'sk-gw-abcde',
    ...over,
  } as RequestLogEntity;
}

describe('span attributes', () => {
  it('the GenAI names come from the incubating semantic conventions at run time', () => {
    expect(incubating.ATTR_GEN_AI_OPERATION_NAME).toBe('gen_ai.operation.name');
    expect(incubating.ATTR_GEN_AI_PROVIDER_NAME).toBe('gen_ai.provider.name');
    expect(incubating.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS).toBe('gen_ai.usage.cache_read.input_tokens');
    expect(incubating.GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS).toBe('embeddings');
  });

  it('a chat call: GenAI, HTTP and gateway attributes; absent values left out', () => {
    expect(spanAttributes(record())).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.usage.input_tokens': 12,
      'gen_ai.usage.output_tokens': 5,
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gateway.request_id': 'req_1',
      'gateway.team_id': 'team_1',
      'gateway.api_key_prefix': 'sk-gw-abcde',
      'gateway.cost_rub': 1.5,
      'gateway.attempts': 1,
      'gateway.stream': true,
      'gateway.ttft_ms': 10,
    });
    expect(spanAttributes(record({ cacheReadTokens: 7 }))['gen_ai.usage.cache_read.input_tokens']).toBe(7);
  });

  it('operation and name by endpoint; errors by status or code', () => {
    expect(operationOf('/v1/embeddings')).toBe('embeddings');
    expect(operationOf('/api/v1/rerank')).toBe('rerank');
    expect(operationOf('/v1/images/generations')).toBe('generate_content');
    expect(operationOf('/v1/vector_stores/{id}/search')).toBe('retrieval');
    expect(operationOf('/v1/responses')).toBe('generate_content');
    expect(spanName(record({ model: null, endpoint: '/v1/messages' }))).toBe('chat');
    expect(isError(record())).toBe(false);
    expect(isError(record({ status: 402 }))).toBe(true);
    expect(isError(record({ errorCode: 'client_disconnected' }))).toBe(true);
  });
});
