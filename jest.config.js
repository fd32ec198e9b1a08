/**
 * Three tiers (see README "Tests"): unit beside the code, medium against a real database, e2e over HTTP.
 *
 * Nest 12 and several of its dependencies ship as ES modules only. Node 20.19 loads them from the
 * CommonJS build through require(esm), but Jest's module runtime cannot, so Jest compiles those
 * packages (and our TypeScript) to CommonJS with SWC. Type checking is done by `npm run lint` (tsc).
 */
const moduleNameMapper = {};
for (const lib of [
  'common',
  'config',
  'database',
  'auth',
  'billing',
  'providers',
  'chat',
  'rerank',
  'images',
  'knowledge',
  'embeddings',
  'retrieval',
  'admin',
  'projects',
  'governance',
  'accounts',
  'alerts',
  'request-log',
  'payments',
  'documents',
  'fx',
  'pricing',
  'data-protection',
  'mcp',
  'provider-status',
]) {
  moduleNameMapper[`^@app/${lib}$`] = `<rootDir>/libs/${lib}/src`;
  moduleNameMapper[`^@app/${lib}/(.*)$`] = `<rootDir>/libs/${lib}/src/$1`;
}
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
      keepClassNames: true,
    },
    module: { type: 'commonjs', ignoreDynamic: false },
    sourceMaps: 'inline',
  },
];
const esmPackages = [
  '@nestjs',
  'file-type',
  'strtok3',
  'token-types',
  'peek-readable',
  'uint8array-extras',
  '@tokenizer',
  'cache-manager',
  'keyv',
  '@keyv',
  'hookified',
  '@cacheable',
  'cacheable',
  'qified',
  'js-tiktoken',
  'pdfjs-dist',
  'linkedom',
  'css-select',
  'css-what',
  'domhandler',
  'domelementtype',
  'domutils',
  'dom-serializer',
  'entities',
  'htmlparser2',
  'boolbase',
  'nth-check',
  'uhyphen',
  'cssomnom',
  'html-escaper',
  '@borewit',
  'openid-client',
  'oauth4webapi',
  'jose',
  'oidc-provider',
  // the OTLP exporters load node:http with a dynamic import(), which Jest's module runtime cannot run
  '@opentelemetry',
];
const base = {
  rootDir: __dirname,
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: { '^.+\\.(t|j|mj)s$': swc },
  transformIgnorePatterns: [`/node_modules/(?!(${esmPackages.join('|')})/)`],
  testEnvironment: 'node',
  moduleNameMapper,
};
module.exports = {
  testTimeout: 30000,
  // Suites run in a worker process that is replaced once it holds more than this after a suite. Without
  // it a two-core machine (one worker) runs every suite inside Jest's own process, where the memory of
  // 150 suites' apps accumulates until the heap limit, and a client a suite left open keeps Jest alive.
  workerIdleMemoryLimit: '1536MB',
  projects: [
    {
      ...base,
      displayName: 'unit',
      testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.medium\\.spec\\.ts$'],
    },
    {
      ...base,
      displayName: 'medium',
      testMatch: ['<rootDir>/libs/**/*.medium.spec.ts', '<rootDir>/test/medium/**/*.spec.ts'],
    },
    {
      ...base,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      // every 2xx body and stream event an in-test app sends is checked against docs/openapi.json
      setupFilesAfterEnv: ['<rootDir>/test/support/contract-setup.ts'],
    },
  ],
};
