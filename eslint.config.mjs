import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'data/**', 'coverage/**', '**/*.js', '**/*.mjs'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: "MemberExpression[object.name='process'][property.name='env']",
          message: 'Read configuration through @app/config (AppConfig), not process.env.',
        },
      ],
    },
  },
  prettier,
  {
    files: [
      'libs/config/**/*.ts',
      'test/**/*.ts',
      'ormconfig.ts',
      'scripts/**/*.ts',
      '**/*.spec.ts',
      'apps/console/vite.config.ts',
      'apps/console/e2e/**/*.ts',
    ],
    rules: { 'no-restricted-syntax': 'off' },
  },
);
