import { mergeConfig, defineConfig } from 'vitest/config'
import viteConfig from './vite.config.ts'

export default mergeConfig(
  viteConfig,
  defineConfig({
    test: {
      environment: 'jsdom',
      setupFiles: ['./src/testing/setup-tests.ts'],
      include: ['src/**/*.test.{ts,tsx}'],
      restoreMocks: true,
      // Rendering whole pages in jsdom on a loaded 2-core machine can pass 5 s.
      testTimeout: 15_000,
    },
  }),
)
