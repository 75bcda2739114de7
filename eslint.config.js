// Lint: the recommended JavaScript and TypeScript rules, plus the project's layering rule
// (only src/backends/polling imports @azure/event-hubs; only src/backends/streaming imports the AMQP client).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', '.tmp/**', 'dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { console: 'readonly', process: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', Buffer: 'readonly', URL: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextDecoder: 'readonly', TextEncoder: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly', fetch: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/backends/polling/**', 'src/backends/streaming/**', 'src/emulator/**'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [
          { name: '@azure/event-hubs', message: 'Only src/backends/polling may import @azure/event-hubs.' },
          { name: 'rhea-promise', message: 'Only src/backends/streaming may import rhea-promise.' },
          { name: '@azure/core-amqp', message: 'Only src/backends/streaming may import @azure/core-amqp.' },
        ],
      }],
    },
  },
);
