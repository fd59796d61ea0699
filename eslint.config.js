// The TypeScript lint that CI runs (`npm run lint:ts`). Kept to rules that catch real defects in a
// server: promises nobody awaits (a lost write error), promises passed where a callback is
// expected, awaits of non-promises, unused code. Import cycles are checked by madge
// (`npm run lint:cycles`), which also sees type-only imports.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'native/', 'target/', 'node_modules/', 'coverage/', 'storage/', 'bench/results/'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  {
    // Tests and benchmarks read arbitrary JSON answers and assert on their fields; typing every
    // response body would add casts, not safety. Server code keeps the rule.
    files: ['test/**/*.ts', 'bench/**/*.ts', '**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
