export * from './chunking';
export * from './fusion';
export * from './scores';
export * from './vector-index';
