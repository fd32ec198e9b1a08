/** Fake upstream servers for e2e tests (test-only, never shipped). See test/fakes/README.md. */
export * from './scenario';
export * from './fake-http';
export * from './fake-openai';
export * from './fake-anthropic';
export * from './fake-gemini';
export * from './image-server';
export * from './otlp-receiver';
export * from './fake-yandex';
export * from './fake-yookassa';
export * from './fake-gigachat';
export * from './fake-cbr';
export * from './fake-mcp';
