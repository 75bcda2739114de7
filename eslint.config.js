// Lint: the recommended JavaScript and TypeScript rules, plus the project's layering rules
// (only src/backends/polling imports @azure/event-hubs; only src/backends/streaming imports the AMQP client;
// a folder's `internal/` is private to that folder and the folders under it).
import { dirname, join, normalize, sep } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** `layering/no-foreign-internal`: src/a/x.ts may import src/a/internal/y.ts, not src/b/internal/z.ts. */
const noForeignInternal = {
  meta: {
    type: 'problem',
    schema: [],
    messages: {
      foreign: "'{{spec}}' is in {{owner}}/internal/, private to {{owner}}/: import that folder's public files instead",
    },
  },
  create(context) {
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const from = dirname(context.filename);
      const target = normalize(join(from, spec));
      const at = target.lastIndexOf(`${sep}internal${sep}`);
      if (at < 0) return;
      const owner = target.slice(0, at);
      if (from === owner || from.startsWith(owner + sep)) return;
      const root = context.cwd ?? process.cwd();
      context.report({
        node: node.source,
        messageId: 'foreign',
        data: { spec, owner: owner.startsWith(root) ? owner.slice(root.length + 1) : owner },
      });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'coverage/**', '.tmp/**', 'dist/**', '.test-build/**', '.scratch/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextDecoder: 'readonly',
        TextEncoder: 'readonly',
        structuredClone: 'readonly',
        queueMicrotask: 'readonly',
        fetch: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { layering: { rules: { 'no-foreign-internal': noForeignInternal } } },
    rules: { 'layering/no-foreign-internal': 'error' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/backends/polling/**', 'src/backends/streaming/**', 'src/emulator/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: '@azure/event-hubs', message: 'Only src/backends/polling may import @azure/event-hubs.' },
            { name: 'rhea-promise', message: 'Only src/backends/streaming may import rhea-promise.' },
            { name: '@azure/core-amqp', message: 'Only src/backends/streaming may import @azure/core-amqp.' },
          ],
        },
      ],
    },
  },
);
