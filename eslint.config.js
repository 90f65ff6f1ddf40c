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

/* Module boundaries (docs/architecture.md): dependencies point down.
 *   src/shared/            the contract and static data: imports nothing from main/, renderer/, preload/
 *   foundations            db, secrets, config, log, push, committed, context, transport, meters, contribution,
 *                          workers: import no capability
 *   capabilities           src/main/<capability>/: never import another capability, nor what composes them
 *   composers              src/main/api/ (where capabilities meet), api.ts, services.ts, backend.ts,
 *                          serve.ts, index.ts, cli/, demo/: may import all of the above
 * An import path is matched relative to the importing file, so `../chains` from src/main/payments/
 * and `../../chains` from src/main/desktop/shell/ both name the chains capability. */
const capabilities = [
  'webhooks',
  'chains',
  'payments',
  'desktop',
  'forward',
  'relay',
  'sources',
  'alerts',
  'replay',
  'drift',
  'clock',
  'disablement',
]
const foundations = [
  'db',
  'secrets',
  'config',
  'log',
  'push',
  'committed',
  'context',
  'transport',
  'meters',
  'workers',
  'contribution',
]
const composers = ['api', 'services', 'backend', 'serve', 'cli', 'demo', 'contributions']
const sibling = (names) => `^(\\./|(\\.\\./)+)(main/)?(${names.join('|')})(\\.ts)?(/|$)`

const boundary = (files, forbidden, message, extraPatterns = []) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { ...electronImport, patterns: [{ regex: sibling(forbidden), message }, ...extraPatterns] },
    ],
  },
})

/** The declared layerings between capabilities, through the base's public surface only: the relay
 * (server) is a receiver built from the webhooks capability's parts (listener, ingest, commit
 * worker); the sources (the console following relays) commit through the same commit worker. */
const buildsOn = { relay: ['webhooks'], sources: ['webhooks'] }

const boundaries = [
  ...capabilities.map((capability) =>
    boundary(
      [`src/main/${capability}/**/*.ts`],
      [
        ...capabilities.filter((c) => c !== capability && !(buildsOn[capability] ?? []).includes(c)),
        ...composers,
      ],
      `A capability never imports another capability, nor what composes them: they meet in src/main/api/ (move what both need down to src/shared/ or a foundation).`,
      (buildsOn[capability] ?? []).map((base) => ({
        regex: `^(\\.\\./)+${base}/`,
        message: `${capability} builds on ${base} through its public surface only: import '../${base}' (its index.ts).`,
      })),
    ),
  ),
  boundary(
    foundations.flatMap((f) => [`src/main/${f}/**/*.ts`, `src/main/${f}.ts`]),
    [...capabilities, ...composers],
    'A foundation (db, secrets, config, log, push, committed, context, transport, meters, workers, contribution) imports no capability: capabilities build on foundations, not the other way round.',
  ),
  boundary(
    ['src/shared/**/*.ts'],
    ['main', 'renderer', 'preload'],
    'src/shared/ is the contract and static data: it imports nothing from main/, renderer/ or preload/.',
  ),
]

/* Composers meet a capability at its surface: `../alerts` (its index.ts), never `../alerts/channels`.
 * What a composer needs is exported from the capability's index.ts. Tests are exempt. */
const throughIndex = (prefix) => ({
  regex: `^${prefix}(main/)?(${capabilities.join('|')})/(?!index(\\.ts)?$)`,
  message:
    "A composer imports a capability through its index.ts only ('../alerts', not '../alerts/channels'): export what it needs there.",
})
const composerRules = [
  { files: ['src/main/{api,cli,demo}/**/*.ts'], prefix: '(\\.\\./)+', electron: true },
  { files: ['src/main/{api,backend,cli,contributions,serve,services}.ts'], prefix: '\\./', electron: true },
  // The Electron entry imports electron itself.
  { files: ['src/main/index.ts'], prefix: '\\./', electron: false },
].map(({ files, prefix, electron }) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      { ...(electron ? electronImport : {}), patterns: [throughIndex(prefix)] },
    ],
  },
}))

/* Lifecycles (docs/architecture.md): whatever subscribes, starts a timer or opens a stream returns a
 * Disposable (src/shared/disposable.ts) that someone owns, never a bare `() => void` to call. Caught
 * by name (on*, subscribe*, watch*, attach*, follow*, listen*, after): a declaration that returns
 * `() => void` (interface member, function, a parameter typed as such) and an implementation whose
 * type is inferred and that returns an arrow function. A function that hands back a continuation
 * (`done`, `release`) is not a subscription and is left alone. */
const subscriber = /^(on[A-Z]|subscribe|watch|attach|follow|listen|after$)/.toString()
const returnsUnsubscribe =
  'TSTypeAnnotation > TSFunctionType[params.length=0] > TSTypeAnnotation > TSVoidKeyword'
const disposableSelectors = [
  `TSMethodSignature[key.name=${subscriber}] > ${returnsUnsubscribe}`,
  `:matches(TSPropertySignature[key.name=${subscriber}], Identifier[name=${subscriber}]) > TSTypeAnnotation > TSFunctionType > ${returnsUnsubscribe}`,
  `:matches(FunctionDeclaration[id.name=${subscriber}], :matches(Property, MethodDefinition)[key.name=${subscriber}] > :function, VariableDeclarator[id.name=${subscriber}] > ArrowFunctionExpression) > ${returnsUnsubscribe}`,
  `:matches(Property, MethodDefinition)[key.name=${subscriber}] > :function > BlockStatement > ReturnStatement > ArrowFunctionExpression`,
  `Property[key.name=${subscriber}] > ArrowFunctionExpression > ArrowFunctionExpression`,
  // A function declaration or a `const` arrow/function that hands back a function of no arguments
  // (an unsubscribe), with a block body or a concise one.
  `:matches(FunctionDeclaration[id.name=${subscriber}], VariableDeclarator[id.name=${subscriber}] > :function) > BlockStatement > ReturnStatement > :function[params.length=0]`,
  `VariableDeclarator[id.name=${subscriber}] > ArrowFunctionExpression > :function[params.length=0]`,
  // The same, declared to return an unsubscribe-like alias instead of a written-out `() => void`.
  `:matches(TSMethodSignature, TSPropertySignature)[key.name=${subscriber}] > TSTypeAnnotation > TSTypeReference[typeName.name=/^(Unsubscribe|Unlisten|Cleanup|Off)$/]`,
]
const disposableRule = {
  files: ['src/**/*.{ts,tsx}'],
  rules: {
    'no-restricted-syntax': [
      'error',
      ...disposableSelectors.map((selector) => ({
        selector,
        message:
          'Return a Disposable (src/shared/disposable.ts: toDisposable, DisposableStore), not a function to call: every subscription, timer and stream is disposed by its owner (docs/architecture.md, Lifecycles).',
      })),
    ],
  },
}

/* Short functions (issue 33): none in the back end over 150 lines, counted as written (blank lines
 * and comments too). A factory that grows past it is split by concern: its parts become module
 * functions over the state it owns, or files of their own (forward/step-timer.ts). */
const shortFunctions = {
  files: ['src/main/**/*.ts'],
  rules: {
    'max-lines-per-function': [
      'error',
      { max: 150, skipBlankLines: false, skipComments: false, IIFEs: true },
    ],
  },
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
  ...boundaries,
  disposableRule,
  shortFunctions,
  {
    files: ['src/main/index.ts', 'src/preload/**/*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  ...composerRules,
  // The shell may import electron, and is still part of the desktop capability.
  {
    ...boundaries[capabilities.indexOf('desktop')],
    files: ['src/main/desktop/shell/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: boundaries[capabilities.indexOf('desktop')].rules['no-restricted-imports'][1].patterns },
      ],
    },
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
