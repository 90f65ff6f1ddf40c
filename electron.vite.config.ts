import { resolve } from 'node:path'
import { defineConfig } from 'electron-vite'
import react from '@vitejs/plugin-react'
import { execFileSync } from 'node:child_process'
import type { Plugin } from 'vite'
import { nodeHttpByRequire } from './build/node-http-by-require'
import { ipcChannel, ipcPushChannel, methodNames } from './src/shared/contract'
import { contentSecurityPolicy, metaContentSecurityPolicy } from './src/shared/csp'

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

/** index.html's CSP meta tag, written from the one definition (src/shared/csp.ts) in place of the
 * placeholder comment; relaxed only in dev. Written as text: Vite's tag injection would escape the
 * quotes, which a browser reads the same but the bundle check does not. */
const cspPlaceholder = /<!-- Content-Security-Policy[^>]*-->/
const rendererCspMeta = (dev: boolean): Plugin => ({
  name: 'watchdesk-renderer-csp',
  transformIndexHtml(html) {
    if (!cspPlaceholder.test(html))
      throw new Error('src/renderer/index.html lost its CSP placeholder comment')
    const csp = dev ? allowInlineStyles(metaContentSecurityPolicy) : metaContentSecurityPolicy
    return html.replace(cspPlaceholder, `<meta http-equiv="Content-Security-Policy" content="${csp}" />`)
  },
})

// Native modules (better-sqlite3, keytar) are the only runtime "dependencies" and stay external;
// everything else is bundled, so the packaged app ships no node_modules beyond them.
export default defineConfig(({ command }) => ({
  main: {
    define: {
      'process.env.WATCHDESK_BUILD': JSON.stringify(buildStamp()),
      __WATCHDESK_DEV_CSP__: JSON.stringify(
        command === 'serve' ? allowInlineStyles(contentSecurityPolicy) : null,
      ),
    },
    plugins: [nodeHttpByRequire()],
    build: {
      outDir: 'out/main',
      rolldownOptions: {
        input: {
          index: resolve('src/main/index.ts'),
          cli: resolve('src/main/cli.ts'),
          // The commit worker's thread loads this file (out/main/commit-worker.js) by path.
          'commit-worker': resolve('src/main/webhooks/commit-worker.ts'),
          // The commit worker starts the checkpointer's thread from this file, beside its own.
          'checkpoint-worker': resolve('src/main/webhooks/checkpoint-worker.ts'),
          // The forward dispatcher's thread (out/main/forward-worker.js), likewise.
          'forward-worker': resolve('src/main/forward/worker.ts'),
        },
      },
    },
  },
  preload: {
    // The contract's channels as plain data, so the preload bundles no zod (see src/preload).
    define: {
      __WATCHDESK_IPC__: JSON.stringify({
        calls: Object.fromEntries(methodNames.map((name) => [name, ipcChannel(name)])),
        push: ipcPushChannel,
      }),
    },
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
      // electron-vite leaves the renderer unminified; the console is also served over HTTP to a
      // browser, where 950 kB of readable source is load time for nothing (sourcemaps stay off).
      minify: true,
      rolldownOptions: { input: { index: resolve('src/renderer/index.html') } },
    },
    plugins: [react(), rendererCspMeta(command === 'serve')],
  },
}))
