/** Three tiers (see README "Tests"): unit beside the code, medium against a real database, e2e over HTTP. */
const moduleNameMapper = {};
for (const lib of ['common', 'config', 'database', 'auth', 'billing', 'providers', 'chat', 'rerank', 'projects', 'admin']) {
  moduleNameMapper[`^@app/${lib}$`] = `<rootDir>/libs/${lib}/src`;
  moduleNameMapper[`^@app/${lib}/(.*)$`] = `<rootDir>/libs/${lib}/src/$1`;
}
const base = {
  rootDir: __dirname,
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', isolatedModules: true }] },
  testEnvironment: 'node',
  moduleNameMapper,
};
module.exports = {
  testTimeout: 30000,
  projects: [
    { ...base, displayName: 'unit', testMatch: ['<rootDir>/libs/**/*.spec.ts', '<rootDir>/apps/**/*.spec.ts'], testPathIgnorePatterns: ['\\.medium\\.spec\\.ts$'] },
    { ...base, displayName: 'medium', testMatch: ['<rootDir>/libs/**/*.medium.spec.ts', '<rootDir>/test/medium/**/*.spec.ts'] },
    { ...base, displayName: 'e2e', testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'] },
  ],
};
