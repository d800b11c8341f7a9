import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20000,
    hookTimeout: 20000,
    // Many tests crash tools on purpose: the default stderr logger stays quiet
    // unless RXMCP_LOG_LEVEL asks otherwise. Tests of the logging itself set it.
    env: { RXMCP_LOG_LEVEL: process.env.RXMCP_LOG_LEVEL ?? 'silent' },
  },
});
