export * from './chat.module';
export * from './chat.service';
export * from './chat-cost';
export * from './anthropic/messages.service';
export * from './context/ports';
