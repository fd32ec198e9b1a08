export * from './gigachat.definition';
export * from './gigachat.request';
export * from './gigachat.response';
export * from './gigachat.stream';
export * from './gigachat.errors';
export * from './gigachat.embeddings';
export * from './gigachat.session';
export * from './gigachat.provider';
