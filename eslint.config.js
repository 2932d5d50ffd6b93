import js from '@eslint/js'
import tseslint from 'typescript-eslint'

/**
 * The layers of docs/architecture.md as import rules: inside a feature, routes → service → repository
 * → storage; features meet through services, never another feature's repository; storage/ knows no
 * feature but its table types; shared/ knows no one. Each entry is a regex over the import's text.
 */
const LAYERS = 'docs/architecture.md, "Layers"'
const noOtherRepository = {
  regex: String.raw`^\.\./[^/]+/[^/]+\.repository\.js$`,
  message: `another feature is reached through its service, not its repository (${LAYERS})`,
}
const featureRules = {
  routes: [
    { regex: '^kysely$', message: `routes never build queries: they call the service (${LAYERS})` },
    { regex: String.raw`\.repository\.js$`, message: `routes call the service, which calls the repository (${LAYERS})` },
    { regex: String.raw`^\.\./storage/`, allowTypeImports: true, message: `routes reach storage through a service (${LAYERS})` },
  ],
  service: [
    { regex: String.raw`\.routes\.js$`, message: `a service knows nothing of routes (${LAYERS})` },
    { regex: String.raw`^\.\./http/`, message: `a service throws domain errors (shared/errors.ts), it knows nothing of HTTP (${LAYERS})` },
    { regex: '^kysely$', allowTypeImports: true, message: `a service leaves queries to its repository (${LAYERS})` },
  ],
  repository: [
    { regex: String.raw`\.(service|routes)\.js$`, message: `a repository is called by its service, and calls nothing above it (${LAYERS})` },
    {
      regex: String.raw`^\.\./(http/|config\.js$|shared/errors\.js$)|^\./[^/]+\.errors\.js$`,
      message: `a repository neither reads configuration nor throws domain or HTTP errors (${LAYERS})`,
    },
  ],
}
const restrict = (...patterns) => ({ '@typescript-eslint/no-restricted-imports': ['error', { patterns }] })
/** storage/ imports shared/, the configuration type and the features' *.table.ts; `up` leads from the file to src/. */
const storageOnly = (up, ...alsoAllowed) => ({
  regex: String.raw`^${up}(?!${['shared/', ...alsoAllowed].join('|')})[^/]+/(?![^/]+\.table\.js$)|^${up}(?!config\.js$)[^/]+\.js$`,
  message: `storage/ imports no feature module except its *.table.ts row types (${LAYERS})`,
})

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        URL: 'readonly',
        URLSearchParams: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    // Async safety needs types: a promise nobody awaits loses its rejection, and one handed where a
    // callback's result is ignored (an event listener, forEach) runs unsupervised.
    files: ['{src,test,bench,sdk}/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's test() and describe() return promises that the runner itself awaits.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    // A newcomer reads a module in one sitting: one that outgrows this splits by caller or concern
    // (docs/architecture.md). Tests, migrations and generated files are read a case at a time.
    files: ['{src,test,bench,sdk,scripts}/**/*.{ts,mjs}', 'web/src/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts', 'src/storage/migrations/*.ts', 'sdk/schema.d.ts'],
    rules: { 'max-lines': ['error', { max: 350 }] },
  },
  {
    files: ['src/*/**/*.ts'],
    // Composition roots wire repositories into services: src/*.ts (not matched) and the click writer thread.
    ignores: ['src/**/*.test.ts', 'src/stats/click-writer.worker.ts', 'src/storage/**', 'src/shared/**'],
    rules: restrict(noOtherRepository),
  },
  { files: ['src/*/*.routes.ts'], rules: restrict(noOtherRepository, ...featureRules.routes) },
  { files: ['src/*/*.service.ts'], rules: restrict(noOtherRepository, ...featureRules.service) },
  { files: ['src/*/*.repository.ts'], rules: restrict(noOtherRepository, ...featureRules.repository) },
  {
    files: ['src/shared/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    rules: restrict({ regex: String.raw`^\.\./`, message: `shared/ holds dependency-free helpers (${LAYERS})` }),
  },
  { files: ['src/storage/*.ts'], ignores: ['src/**/*.test.ts'], rules: restrict(storageOnly(String.raw`\.\./`)) },
  // A data migration writes click blocks, and fills workspace rollups, in the one format the code reads, through its code.
  {
    files: ['src/storage/migrations/*.ts'],
    rules: restrict(storageOnly(String.raw`\.\./\.\./`, String.raw`stats/visit-columns\.js$`, String.raw`stats/workspace-rollup\.js$`)),
  },
  {
    // The dashboard runs in a browser (web/, built by Vite).
    files: ['web/src/**/*.{ts,tsx}'],
    languageOptions: {
      globals: {
        window: 'readonly',
        document: 'readonly',
        location: 'readonly',
        history: 'readonly',
        navigator: 'readonly',
        fetch: 'readonly',
        HTMLElement: 'readonly',
        HTMLInputElement: 'readonly',
        HTMLSelectElement: 'readonly',
        HTMLDivElement: 'readonly',
        Event: 'readonly',
        MouseEvent: 'readonly',
        Response: 'readonly',
        Blob: 'readonly',
        reportError: 'readonly',
      },
    },
  },
)
