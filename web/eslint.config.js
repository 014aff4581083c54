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
