import js from '@eslint/js'
import tseslint from 'typescript-eslint'
import reactHooks from 'eslint-plugin-react-hooks'
import globals from 'globals'

const electronImport = {
  paths: [
    {
      name: 'electron',
      message:
        'Only the Electron shell (src/main/index.ts, src/main/desktop/shell/**) and the preload import electron.',
    },
  ],
}

export default tseslint.config(
  { ignores: ['out/**', 'dist/**', 'node_modules/**', 'test-results/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-restricted-imports': ['error', electronImport],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['src/main/index.ts', 'src/main/desktop/shell/**/*.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/renderer/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      // Types from the contract are free; its schemas would put zod in the page's bundle.
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [
                'zod',
                '**/shared/contract',
                '**/shared/contract/*',
                '**/shared/config',
                '**/plan-schemas',
              ],
              allowTypeImports: true,
              message:
                'The renderer imports only types from the contract; validation happens in the back end.',
            },
          ],
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          ...electronImport,
          patterns: [
            {
              group: ['node:*', '**/main/**'],
              message: 'The renderer talks to the back end only through the contract client.',
            },
          ],
        },
      ],
    },
  },
)
