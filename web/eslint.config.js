import { readdirSync } from 'node:fs'
import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import reactRefresh from 'eslint-plugin-react-refresh'
import globals from 'globals'
import tseslint from 'typescript-eslint'

const FEATURES = readdirSync(new URL('./src/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)

/**
 * Fences (issue 33 point 9): a feature may use another feature's api/ hooks and types, but not
 * its components (a piece two features show lives in src/components); src/components and src/lib
 * import no feature at all. src/app composes the features and may import any of them. One block
 * per feature, since each allows only its own components.
 */
const featureFences = FEATURES.map((feature) => ({
  files: [`src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            // @/features/<other>/components/..., or a relative path up into <other>/components.
            regex: `^(@/features/|(\\.\\./)+(features/)?)(?!${feature}/)[^/]+/components(/|$)`,
            message: `src/features/${feature} may not import another feature's components: move the piece both use to src/components (features may share api/ hooks and types).`,
          },
        ],
      },
    ],
  },
}))

const sharedFence = {
  files: ['src/components/**/*.{ts,tsx}', 'src/lib/**/*.{ts,tsx}'],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: '^(@/features(/|$)|(\\.\\./)+features(/|$))',
            message:
              'src/components and src/lib may not import from src/features: take the data by props, or move the helper here.',
          },
        ],
      },
    ],
  },
}

/** The JSX attributes whose text a user sees or hears. */
const TEXT_ATTRIBUTES = new Set(['aria-label', 'title', 'placeholder', 'alt', 'label'])
const LETTER = /\p{L}/u

/** A string literal or a template without expressions that holds a letter: words written in place. */
function literalText(node) {
  if (!node) return null
  if (node.type === 'Literal' && typeof node.value === 'string')
    return LETTER.test(node.value) ? node.value : null
  if (node.type === 'TemplateLiteral' && node.expressions.length === 0) {
    const text = node.quasis.map((quasi) => quasi.value.cooked ?? '').join('')
    return LETTER.test(text) ? text : null
  }
  if (node.type === 'JSXExpressionContainer') return literalText(node.expression)
  // `{open ? 'Hide' : 'Show'}`, `{label ?? 'None'}`: the words of either branch.
  if (node.type === 'ConditionalExpression')
    return literalText(node.consequent) ?? literalText(node.alternate)
  if (node.type === 'LogicalExpression') return literalText(node.left) ?? literalText(node.right)
  return null
}

/**
 * Issue 33 point 7: every string the user sees comes from the catalogues (src/i18n/en.ts, ru.ts).
 * Reports words written in JSX: text between tags, `{'words'}` children, and string literals in the
 * attributes a user reads or hears (TEXT_ATTRIBUTES).
 */
const noLiteralText = {
  meta: {
    type: 'problem',
    docs: { description: 'disallow user-visible words written in JSX instead of read from the catalogues' },
    messages: {
      text: 'Words in JSX ("{{text}}"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
      attribute: 'Words in {{name}} ("{{text}}"): read them from the catalogue (src/i18n/en.ts and ru.ts).',
    },
    schema: [],
  },
  create(context) {
    const report = (node, messageId, text, name) =>
      context.report({ node, messageId, data: { text: text.trim().slice(0, 40), name } })
    return {
      JSXText(node) {
        if (LETTER.test(node.value)) report(node, 'text', node.value)
      },
      JSXExpressionContainer(node) {
        if (node.parent.type === 'JSXAttribute') return
        const text = literalText(node.expression)
        if (text !== null) report(node, 'text', text)
      },
      JSXAttribute(node) {
        const name = node.name.type === 'JSXIdentifier' ? node.name.name : null
        if (name === null || !TEXT_ATTRIBUTES.has(name)) return
        const text = literalText(node.value)
        if (text !== null) report(node, 'attribute', text, name)
      },
    }
  },
}

/** The project's own lint rules (no package: one inline plugin). */
export const signalDeskPlugin = { rules: { 'no-literal-text': noLiteralText } }

export default tseslint.config(
  // openapi.gen.ts is written by openapi-typescript from openapi.json (npm run api:types).
  { ignores: ['dist', 'node_modules', 'test-results', 'playwright-report', 'src/types/openapi.gen.ts'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [
      js.configs.recommended,
      ...tseslint.configs.strictTypeChecked,
      ...tseslint.configs.stylisticTypeChecked,
    ],
    languageOptions: {
      ecmaVersion: 2022,
      globals: { ...globals.browser },
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: {
      'react-hooks': reactHooks,
      'react-refresh': reactRefresh,
    },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-refresh/only-export-components': ['warn', { allowConstantExport: true }],
      '@typescript-eslint/consistent-type-definitions': ['error', 'type'],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
    },
  },
  ...featureFences,
  sharedFence,
  {
    // The screens; not the tests (they name what they look for) nor the ui primitives (no words).
    files: ['src/features/**/*.tsx', 'src/components/**/*.tsx', 'src/app/**/*.tsx'],
    ignores: ['**/*.test.tsx', 'src/components/ui/**'],
    plugins: { 'signal-desk': signalDeskPlugin },
    rules: { 'signal-desk/no-literal-text': 'error' },
  },
  {
    files: ['e2e/**/*.ts', '*.config.ts'],
    languageOptions: { globals: { ...globals.node } },
    rules: { 'react-hooks/rules-of-hooks': 'off', 'react-refresh/only-export-components': 'off' },
  },
  {
    files: ['*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['public/**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
)
