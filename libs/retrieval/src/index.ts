export * from './chunking';
export * from './fusion';
export * from './hybrid';
export * from './scores';
export * from './vector-index';
export * from './terms';
