export * from './chat-message';
export * from './telegram';
export * from './whatsapp';
export * from './slack';
