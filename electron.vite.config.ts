import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import { execFileSync } from 'node:child_process'
import type { Plugin } from 'vite'
import { desktopCsp } from './src/main/desktop/window'

/** The build shown in About: WATCHDESK_BUILD when CI sets it, else the commit and the UTC time. */
function buildStamp(): string {
  if (process.env.WATCHDESK_BUILD) return process.env.WATCHDESK_BUILD
  let commit = 'local'
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    // not a git checkout: keep 'local'
  }
  return `${commit} ${new Date().toISOString().slice(0, 16).replace('T', ' ')}Z`
}

/** `npm run dev` only: Vite injects CSS as <style> tags, which `style-src 'self'` blocks. The built
 * app links CSS files, so this relaxation never reaches a build (define is null there). */
const allowInlineStyles = (csp: string) => csp.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")

const devStylesInRendererCsp: Plugin = {
  name: 'watchdesk-dev-styles-csp',
  apply: 'serve',
  transformIndexHtml: (html) => allowInlineStyles(html),
}

// Native modules (better-sqlite3, keytar) are the only runtime "dependencies" and stay external;
// everything else is bundled, so the packaged app ships no node_modules beyond them.
export default defineConfig(({ command }) => ({
  main: {
    define: {
      'process.env.WATCHDESK_BUILD': JSON.stringify(buildStamp()),
      __WATCHDESK_DEV_CSP__: JSON.stringify(command === 'serve' ? allowInlineStyles(desktopCsp) : null),
    },
    build: {
      outDir: 'out/main',
      rolldownOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          // The commit worker's thread loads this file (out/main/commit-worker.js) by path.
          'commit-worker': resolve('src/main/webhooks/commit-worker.ts'),
          // The forward dispatcher's thread (out/main/forward-worker.js), likewise.
          'forward-worker': resolve('src/main/forward/worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot require anything but 'electron': bundle it whole, as CommonJS.
      externalizeDeps: false,
      isolatedEntries: true,
      rolldownOptions: {
        input: { index: resolve('src/preload/index.ts') },
        external: ['electron'],
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: 'src/renderer',
    build: {
      outDir: 'out/renderer',
      rolldownOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
    plugins: [react(), devStylesInRendererCsp],
  },
}))
