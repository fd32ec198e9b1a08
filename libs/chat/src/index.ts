export * from './chat.module';
export * from './chat.service';
export * from './chat-cost';
