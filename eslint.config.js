// Lint rules that catch bugs, not taste: promises nobody awaits or that land where a callback's
// result is ignored, `any` leaking into typed code, unused code. Formatting is Prettier's job.
// What each rule is for, what is off and why, and how to run them: docs/contributing.md.
import js from '@eslint/js';
import formatjs from 'eslint-plugin-formatjs';
import tseslint from 'typescript-eslint';

/** Rules that say nothing about `any`: on in the server, the SDK and the scripts; off in tests and benches. */
const anyLeaks = [
  '@typescript-eslint/no-explicit-any',
  '@typescript-eslint/no-unsafe-argument',
  '@typescript-eslint/no-unsafe-assignment',
  '@typescript-eslint/no-unsafe-call',
  '@typescript-eslint/no-unsafe-member-access',
  '@typescript-eslint/no-unsafe-return',
];
const off = (rules) => Object.fromEntries(rules.map((rule) => [rule, 'off']));

/**
 * Browser code whose words have all moved into the message catalogs (docs/i18n.md): a literal
 * given to the page as text fails the lint there. Each area joins this list as its words move.
 */
const localized = [
  'web/shared/i18n.ts',
  'web/participant/{join,language,app,account,cards,card-dom,card-frame,card-lists,card-panel-lists}.ts',
  'web/participant/{card-words,card-vote-controls,forms,frame-view,outbox-view,outbox-requests,render,session,step-prefs}.ts',
  'web/participant/write-refusals.ts',
  'web/screen/*.ts',
];
const TEXT_PROPERTIES = '/^(textContent|innerText|title|placeholder|ariaLabel|alt)$/';
const TEXT_ATTRIBUTES = '/^(aria-label|aria-description|title|placeholder|alt)$/';
const fromCatalogs = 'Text a person reads comes from the catalogs: t(id) (docs/i18n.md#writing-a-message).';
/** The same for Preact views (JSX text and these props), by FormatJS's rule: the console's views whose words have moved. */
const localizedViews = [
  'web/console/app.tsx',
  'web/console/router.tsx',
  'web/console/not-open.tsx',
  'web/console/{api-tokens,secret-once,forms}.tsx',
  'web/console/account/*.tsx',
  'web/console/organization/*.tsx',
  'web/console/views/{signed-out,reset,confirm,invitation,sign-in-again,home,create-workshop}.tsx',
  'web/console/workshop/{shell,run,people,exports,log,board,agenda,canvas}.tsx',
  'web/console/workshop/{run,people,board,agenda}/*.tsx',
  'web/console/views/{account,organization,waiting-writes}.tsx',
];
const jsxText = { props: { include: [['*', '{label,placeholder,title,alt,aria-label,aria-description}']] } };
/** `npm run i18n:literals` lists the JSX text left to move, as warnings, in every view not yet localized. */
const listLiterals = process.env.I18N_LITERALS === '1';

export default tseslint.config(
  {
    ignores: ['**/node_modules/', '**/dist/', '.bench/', 'coverage/', 'data/', 'drizzle/', 'client-sdk/src/generated/'],
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A leading underscore marks what is unused on purpose (a parameter kept for its position).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A promise returned inside try/catch without await escapes the catch.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // Taste, or cleanup that catches no bug.
      '@typescript-eslint/no-unnecessary-type-assertion': 'off',
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/no-this-alias': 'off',
      'prefer-const': 'off',
      // Numbers compared with a library's numeric enum (pg's type ids) are what the enum is for.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      // Rejecting with an AbortSignal's reason is how an abortable wait ends (as fetch does).
      '@typescript-eslint/prefer-promise-reject-errors': 'off',
    },
  },
  {
    // Tests and benches read response bodies as `any` (`request<T = any>`); typing them from the
    // route schemas comes first, then these rules can be turned on there too.
    files: ['test/**', 'bench/**'],
    rules: off(anyLeaks),
  },
  {
    // Socket events arrive untyped and are told apart by name; the listeners get them typed by event
    // (`PayloadOf<E>`). Making `Received` a union of event and payload pairs would lift this.
    files: ['client-sdk/src/live/events.ts'],
    rules: off(anyLeaks.filter((rule) => !/no-unsafe-(assignment|call)$/.test(rule))),
  },
  {
    files: localized,
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: `AssignmentExpression[left.property.name=${TEXT_PROPERTIES}] > Literal.right[value=/./]`,
          message: fromCatalogs,
        },
        {
          selector: `AssignmentExpression[left.property.name=${TEXT_PROPERTIES}] > TemplateLiteral.right`,
          message: fromCatalogs,
        },
        {
          selector: `CallExpression[callee.property.name='setAttribute'][arguments.0.value=${TEXT_ATTRIBUTES}] > :matches(Literal, TemplateLiteral).arguments:nth-child(2)`,
          message: fromCatalogs,
        },
      ],
    },
  },
  {
    files: ['web/**/*.tsx'],
    plugins: { formatjs },
    rules: { 'formatjs/no-literal-string-in-jsx': listLiterals ? ['warn', jsxText] : 'off' },
  },
  ...(localizedViews.length > 0
    ? [{ files: localizedViews, rules: { 'formatjs/no-literal-string-in-jsx': ['error', jsxText] } }]
    : []),
  {
    files: ['**/*.js', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        URL: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
      },
    },
  },
);
