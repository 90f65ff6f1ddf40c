import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ipcChannel, ipcPushChannel, methodNames } from '../../../src/shared/contract'
import { hardeningProblems, maxPreloadBytes } from './hardening-check'
import type { BuiltApp } from './hardening-check'

/** Reads what `npx electron-vite build` produced (out/), not the sources: a weakening that slips in
 * through a config change, a spread or a bundler option shows here. Run the build first. */
const out = join(import.meta.dirname, '..', '..', '..', 'out')

function readMainBundle(file: string, seen = new Set<string>()): string {
  if (seen.has(file)) return ''
  seen.add(file)
  const text = readFileSync(file, 'utf8')
  const chunks = [...text.matchAll(/from\s+"(\.\/[^"]+\.js)"/g)].map((m) => join(dirname(file), m[1]!))
  return [text, ...chunks.map((c) => readMainBundle(c, seen))].join('\n')
}

describe('built bundle hardening', () => {
  let built: BuiltApp
  beforeAll(() => {
    const main = join(out, 'main', 'index.js')
    if (!existsSync(main)) throw new Error(`${main} is missing: run "npx electron-vite build" first.`)
    built = {
      main: readMainBundle(main),
      rendererHtml: readFileSync(join(out, 'renderer', 'index.html'), 'utf8'),
      preload: readFileSync(join(out, 'preload', 'index.cjs'), 'utf8'),
    }
  })

  it('has every item of the security checklist in the built main, preload and renderer', () => {
    expect(hardeningProblems(built)).toEqual([])
    expect(existsSync(join(out, 'preload', 'index.cjs'))).toBe(true)
  })

  it('builds a preload of plain strings: every contract channel, no zod, a few kB', () => {
    const channels = [...built.preload.matchAll(/"(watchdesk:[\w:.]+)"/g)].map((m) => m[1])
    expect(channels.sort()).toEqual([...methodNames.map(ipcChannel), ipcPushChannel].sort())
    expect(built.preload).not.toMatch(/zod/i)
    expect(built.preload.length).toBeLessThan(maxPreloadBytes)
  })

  const weakenings: [string, (b: BuiltApp) => BuiltApp, RegExp][] = [
    [
      'contextIsolation off',
      (b) => ({ ...b, main: b.main.replace('contextIsolation: true', 'contextIsolation: false') }),
      /contextIsolation is false/,
    ],
    [
      'sandbox off (minified form)',
      (b) => ({ ...b, main: b.main.replace('sandbox: true', 'sandbox: !1') }),
      /sandbox is false/,
    ],
    [
      'nodeIntegration on',
      (b) => ({ ...b, main: b.main.replace('nodeIntegration: false', 'nodeIntegration: true') }),
      /nodeIntegration is true/,
    ],
    [
      'webSecurity off',
      (b) => ({ ...b, main: b.main.replace('webSecurity: true', 'webSecurity: false') }),
      /webSecurity is false/,
    ],
    [
      'a flag overridden after the spread',
      (b) => ({ ...b, main: b.main.replace(/(\.\.\.secureWebPreferences,)/, '$1\n\t\t\tsandbox: false,') }),
      /sandbox is false/,
    ],
    [
      'unsafe-eval in the header CSP',
      (b) => ({ ...b, main: b.main.replace("script-src 'self'", "script-src 'self' 'unsafe-eval'") }),
      /main process CSP header: script-src allows 'unsafe-eval'/,
    ],
    [
      'unsafe-inline in the page CSP',
      (b) => ({
        ...b,
        rendererHtml: b.rendererHtml.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'"),
      }),
      /index\.html meta CSP: script-src allows 'unsafe-inline'/,
    ],
    [
      'default-src widened',
      (b) => ({ ...b, main: b.main.replace("default-src 'self'", "default-src 'self' https:") }),
      /default-src must be exactly 'self'/,
    ],
    [
      'remote connect-src',
      (b) => ({
        ...b,
        main: b.main.replace("connect-src 'self'", "connect-src 'self' https://api.example.com"),
      }),
      /connect-src allows remote content/,
    ],
    [
      'navigation allowed',
      (b) => ({
        ...b,
        main: b.main.replaceAll(
          '"will-navigate", (event) => event.preventDefault()',
          '"will-navigate", (event) => void event',
        ),
      }),
      /will-navigate/,
    ],
    [
      'new windows allowed',
      (b) => ({ ...b, main: b.main.replace('action: "deny"', 'action: "allow"') }),
      /does not deny|action: "allow"/,
    ],
    [
      'permission requests granted',
      (b) => ({
        ...b,
        main: b.main.replace('callback(allowPermission({', 'callback(true || allowPermission({'),
      }),
      /setPermissionRequestHandler/,
    ],
    [
      'permission checks granted',
      (b) => ({
        ...b,
        main: b.main.replace(
          '_origin, details) => allowPermission({',
          '_origin, details) => true || allowPermission({',
        ),
      }),
      /setPermissionCheckHandler/,
    ],
    [
      'a second permission granted',
      (b) => ({
        ...b,
        main: b.main.replace(
          'ask.permission === "clipboard-sanitized-write"',
          '(ask.permission === "clipboard-sanitized-write" || ask.permission === "media")',
        ),
      }),
      /allowPermission grants more/,
    ],
    [
      'the clipboard granted to any frame',
      (b) => ({ ...b, main: b.main.replace(' && ask.isMainFrame', '') }),
      /allowPermission grants more/,
    ],
    [
      'remote URL loaded',
      (b) => ({ ...b, main: b.main.replace('w.loadURL(devServerUrl)', 'w.loadURL("https://example.com")') }),
      /loadURL/,
    ],
    [
      'preload moved',
      (b) => ({ ...b, main: b.main.replace('"../preload/index.cjs"', '"../preload/index.mjs"') }),
      /preload as \.\.\/preload\/index\.cjs/,
    ],
    [
      'zod bundled into the preload',
      (b) => ({ ...b, preload: b.preload + '\nvar ZodError = class extends Error {};' }),
      /the preload bundles zod/,
    ],
    [
      'a preload grown past its budget',
      (b) => ({ ...b, preload: b.preload + `\n/*${'x'.repeat(maxPreloadBytes)}*/` }),
      /the preload is \d+ bytes/,
    ],
    [
      'preload requiring a module',
      (b) => ({ ...b, preload: b.preload + '\nconst zod = require("zod");' }),
      /the preload requires "zod"/,
    ],
  ]

  it.each(weakenings)('fails when the bundle is weakened: %s', (_name, weaken, expected) => {
    const weakened = weaken(built)
    expect(
      weakened.main + weakened.rendererHtml + weakened.preload,
      'the weakening did not apply: update this test',
    ).not.toBe(built.main + built.rendererHtml + built.preload)
    expect(hardeningProblems(weakened).join('\n')).toMatch(expected)
  })
})
