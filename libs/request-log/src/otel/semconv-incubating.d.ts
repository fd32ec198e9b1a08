/**
 * Types of the incubating GenAI names that the span builder takes from
 * `@opentelemetry/semantic-conventions/incubating`. The package publishes that entry point only
 * through its `exports` map, which this project's `node10` module resolution does not read; Node
 * and Jest do, so the values come from the package at run time (span-attributes.spec.ts checks them).
 */
declare module '@opentelemetry/semantic-conventions/incubating' {
  export const ATTR_GEN_AI_OPERATION_NAME: 'gen_ai.operation.name';
  export const ATTR_GEN_AI_PROVIDER_NAME: 'gen_ai.provider.name';
  export const ATTR_GEN_AI_SYSTEM: 'gen_ai.system';
  export const ATTR_GEN_AI_REQUEST_MODEL: 'gen_ai.request.model';
  export const ATTR_GEN_AI_RESPONSE_MODEL: 'gen_ai.response.model';
  export const ATTR_GEN_AI_USAGE_INPUT_TOKENS: 'gen_ai.usage.input_tokens';
  export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS: 'gen_ai.usage.output_tokens';
  export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS: 'gen_ai.usage.cache_read.input_tokens';
  export const GEN_AI_OPERATION_NAME_VALUE_CHAT: 'chat';
  export const GEN_AI_OPERATION_NAME_VALUE_EMBEDDINGS: 'embeddings';
  export const GEN_AI_OPERATION_NAME_VALUE_GENERATE_CONTENT: 'generate_content';
}
