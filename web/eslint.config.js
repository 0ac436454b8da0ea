// ESLint flat config: typescript-eslint (type-aware), React hooks rules and a
// guard that keeps features independent from each other (bulletproof-react).
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import reactRefresh from 'eslint-plugin-react-refresh';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const features = ['auth', 'theme', 'chat', 'creatives', 'locations', 'simulation', 'heatmap', 'workspaces', 'reviews'];

export default tseslint.config(
  { ignores: ['dist', 'coverage', 'node_modules', 'public'] },
  {
    files: ['**/*.{ts,tsx}'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      ecmaVersion: 2022,
      globals: globals.browser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { 'react-hooks': reactHooks, 'react-refresh': reactRefresh },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'react-refresh/only-export-components': ['warn', { allowConstantExport: true }],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // Features must not import each other; shared code lives in components/, lib/, config/.
  ...features.map((feature) => ({
    files: [`src/features/${feature}/**/*.{ts,tsx}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: features
            .filter((other) => other !== feature)
            .map((other) => ({
              group: [`@/features/${other}`, `@/features/${other}/*`, `../../${other}/*`, `../${other}/*`],
              message: 'Features do not import each other; compose them in src/app.',
            })),
        },
      ],
    },
  })),
  // Tests, the test harness and route modules may export helpers next to components.
  {
    files: ['src/**/*.test.{ts,tsx}', 'src/testing/**', 'src/app/router.tsx'],
    rules: { 'react-refresh/only-export-components': 'off' },
  },
  {
    files: ['**/*.{js,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
