/** Reads the built bundles as text and lists every weakening of Electron's security checklist.
 * Kept apart from the test so the test can also show that each weakening is caught. */

export interface BuiltApp {
  /** out/main/index.js and the chunks it imports, concatenated. */
  main: string
  /** out/renderer/index.html */
  rendererHtml: string
  /** out/preload/index.cjs */
  preload: string
}

const requiredFlags: Record<string, boolean> = {
  contextIsolation: true,
  sandbox: true,
  nodeIntegration: false,
  nodeIntegrationInWorker: false,
  nodeIntegrationInSubFrames: false,
  webSecurity: true,
  allowRunningInsecureContent: false,
  experimentalFeatures: false,
  webviewTag: false,
}

export const maxPreloadBytes = 16 * 1024

export function hardeningProblems(built: BuiltApp): string[] {
  return [
    ...webPreferenceProblems(built.main),
    ...cspProblems('main process CSP header', cspFromMain(built.main)),
    ...cspProblems('renderer index.html meta CSP', cspFromHtml(built.rendererHtml)),
    ...handlerProblems(built.main),
    ...preloadProblems(built),
  ]
}

/** The object literal passed as webPreferences to `new BrowserWindow`, with spreads resolved. */
function webPreferenceProblems(main: string): string[] {
  const windows = [...main.matchAll(/new BrowserWindow\(/g)]
  if (windows.length === 0) return ['no `new BrowserWindow(` in the main bundle']
  const problems: string[] = []
  for (const w of windows) {
    const options = balanced(main, main.indexOf('{', w.index))
    const prefsAt = options.search(/webPreferences\s*:\s*\{/)
    if (prefsAt < 0) {
      problems.push('a BrowserWindow is created without webPreferences')
      continue
    }
    const prefs = resolveObject(main, balanced(options, options.indexOf('{', prefsAt)))
    for (const [flag, wanted] of Object.entries(requiredFlags)) {
      const value = prefs.get(flag)
      if (value === undefined) problems.push(`webPreferences.${flag} is not set (must be ${wanted})`)
      else if (value !== String(wanted))
        problems.push(`webPreferences.${flag} is ${value} (must be ${wanted})`)
    }
    const preload = prefs.get('preload')
    if (!preload) problems.push('webPreferences.preload is not set')
  }
  if (!/join\(import\.meta\.dirname,\s*"\.\.\/preload\/index\.cjs"\)/.test(main)) {
    problems.push('the main bundle does not load the preload as ../preload/index.cjs')
  }
  return problems
}

/** key → source text of the value, later keys overriding earlier ones and spreads, like JS does. */
function resolveObject(source: string, literal: string): Map<string, string> {
  const out = new Map<string, string>()
  const body = literal.slice(1, -1)
  for (const part of splitTopLevel(body)) {
    const entry = part.trim()
    if (!entry) continue
    const spread = /^\.\.\.([\w$]+)$/.exec(entry)
    if (spread) {
      const decl = new RegExp(`(?:var|let|const)\\s+${spread[1]!.replace('$', '\\$')}\\s*=\\s*\\{`).exec(
        source,
      )
      if (!decl) {
        out.set('__unresolved__', spread[1]!)
        continue
      }
      for (const [k, v] of resolveObject(source, balanced(source, decl.index + decl[0].length - 1)))
        out.set(k, v)
      continue
    }
    const kv = /^["']?([\w$]+)["']?\s*:\s*([\s\S]+)$/.exec(entry)
    if (kv) out.set(kv[1]!, normalizeBool(kv[2]!.trim()))
    else out.set(entry, entry) // shorthand property
  }
  return out
}

const normalizeBool = (v: string) => (v === '!0' ? 'true' : v === '!1' ? 'false' : v)

function splitTopLevel(body: string): string[] {
  const parts: string[] = []
  let depth = 0
  let quote: string | null = null
  let start = 0
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = null
    } else if (c === '"' || c === "'" || c === '`') quote = c
    else if ('{[('.includes(c)) depth++
    else if ('}])'.includes(c)) depth--
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, i))
      start = i + 1
    }
  }
  parts.push(body.slice(start))
  return parts
}

/** The text from an opening brace to its matching closing brace (strings skipped). */
function balanced(source: string, open: number): string {
  let depth = 0
  let quote: string | null = null
  for (let i = open; i < source.length; i++) {
    const c = source[i]!
    if (quote) {
      if (c === '\\') i++
      else if (c === quote) quote = null
    } else if (c === '"' || c === "'" || c === '`') quote = c
    else if (c === '{') depth++
    else if (c === '}' && --depth === 0) return source.slice(open, i + 1)
  }
  return source.slice(open)
}

/** The CSP the main process sets on every response: the value of the header's array. */
function cspFromMain(main: string): string | null {
  const header = /"Content-Security-Policy"\s*:\s*\[\s*([\w$]+|"[^"]*")\s*\]/.exec(main)
  if (!header) return null
  let ref = header[1]!
  // Follow `var csp = desktopCsp;` style aliases the bundler leaves, a few hops at most.
  for (let hops = 0; hops < 4 && !ref.startsWith('"'); hops++) {
    const decl = new RegExp(
      `(?:var|let|const)\\s+${ref}\\s*=\\s*("(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*'|[\\w$]+)\\s*;`,
    ).exec(main)
    if (!decl) return null
    ref = decl[1]!
  }
  return ref.startsWith('"') || ref.startsWith("'") ? ref.slice(1, -1) : null
}

function cspFromHtml(html: string): string | null {
  const meta = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i.exec(html)
  return meta ? meta[1]! : null
}

function cspProblems(where: string, csp: string | null): string[] {
  if (!csp) return [`${where}: no Content-Security-Policy found`]
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...values]) => [name!, values]),
  )
  const problems: string[] = []
  const defaultSrc = directives.get('default-src')
  if (!defaultSrc || defaultSrc.join(' ') !== "'self'")
    problems.push(`${where}: default-src must be exactly 'self' (is ${defaultSrc?.join(' ') ?? 'missing'})`)
  const scriptSrc = directives.get('script-src') ?? defaultSrc ?? []
  for (const bad of ["'unsafe-eval'", "'unsafe-inline'", "'wasm-unsafe-eval'", '*', 'data:', 'blob:']) {
    if (scriptSrc.includes(bad)) problems.push(`${where}: script-src allows ${bad}`)
  }
  for (const [name, values] of directives) {
    for (const v of values) {
      if (/^(https?:|wss?:|\*)/.test(v) || (v.includes('.') && !v.startsWith("'")))
        problems.push(`${where}: ${name} allows remote content (${v})`)
    }
  }
  if (!directives.get('object-src')?.includes("'none'")) problems.push(`${where}: object-src must be 'none'`)
  return problems
}

function handlerProblems(main: string): string[] {
  const problems: string[] = []
  const preventNavigate = /\.on\("will-navigate",\s*\(?([\w$]+)\)?\s*=>\s*\{?\s*\1\.preventDefault\(\)/g
  if ([...main.matchAll(preventNavigate)].length < 1)
    problems.push('no will-navigate handler that calls preventDefault()')
  if ([...main.matchAll(/\.on\("will-navigate"/g)].length !== [...main.matchAll(preventNavigate)].length) {
    problems.push('a will-navigate handler does not simply call preventDefault()')
  }
  const openHandlers = [...main.matchAll(/setWindowOpenHandler\(/g)]
  if (openHandlers.length === 0) problems.push('no setWindowOpenHandler')
  for (const h of openHandlers) {
    const call = balanced(
      main.replace(/\(/g, '{').replace(/\)/g, '}'),
      h.index + 'setWindowOpenHandler'.length,
    )
    const text = main.slice(h.index, h.index + 'setWindowOpenHandler'.length + call.length)
    if (!/action\s*:\s*"deny"/.test(text) || /action\s*:\s*"allow"/.test(text))
      problems.push(`a setWindowOpenHandler does not deny: ${text.slice(0, 120)}`)
  }
  if (/action\s*:\s*"allow"/.test(main)) problems.push('a window open handler answers action: "allow"')
  problems.push(...permissionProblems(main))
  for (const load of main.matchAll(/\.loadURL\(([^)]*)\)/g)) {
    const arg = load[1]!.trim()
    const fromDevServer = new RegExp(
      `(?:var|let|const)\\s+${arg}\\s*=\\s*(?:[\\w$.]+\\.isPackaged\\s*\\?\\s*(?:void 0|undefined)\\s*:\\s*)?process\\.env\\.ELECTRON_RENDERER_URL`,
    ).test(main)
    if (!fromDevServer)
      problems.push(`loadURL(${arg}) may load remote content (only the dev server URL is allowed)`)
  }
  return problems
}

/** Both permission handlers answer with allowPermission(), and allowPermission grants exactly the
 * clipboard write of the app window's top frame (the built shell test runs it). */
function permissionProblems(main: string): string[] {
  const problems: string[] = []
  if (
    !/setPermissionRequestHandler\(\(([\w$]+,\s*){2}([\w$]+),\s*[\w$]+\)\s*=>\s*\2\(allowPermission\(\{/.test(
      main,
    )
  )
    problems.push('the setPermissionRequestHandler does not answer callback(allowPermission({…}))')
  if (!/setPermissionCheckHandler\(\(([\w$]+,\s*){3}[\w$]+\)\s*=>\s*allowPermission\(\{/.test(main))
    problems.push('the setPermissionCheckHandler does not answer allowPermission({…})')
  const grant = /function allowPermission\(([\w$]+)\)\s*\{\s*return ([^;}]*);?\s*\}/.exec(main)
  const a = grant?.[1]
  if (
    !grant ||
    grant[2]!.trim() !==
      `${a}.permission === "clipboard-sanitized-write" && ${a}.fromAppWindow && ${a}.isMainFrame`
  )
    problems.push(
      `allowPermission grants more than the clipboard write of the app's top frame: ${grant?.[2]}`,
    )
  return problems
}

/** A sandboxed preload can require nothing but 'electron' (and a few Node built-ins we do not use). */
function preloadProblems(built: BuiltApp): string[] {
  const requires = [...built.preload.matchAll(/\brequire\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map((m) => m[1]!)
  const problems = requires
    .filter((r) => r !== 'electron')
    .map((r) => `the preload requires "${r}" (a sandboxed preload may only require "electron")`)
  if (!requires.includes('electron')) problems.push('the preload does not require "electron"')
  if (/\bimport\s*[\s{*\w]*from\s*["']|^\s*import\s/m.test(built.preload))
    problems.push('the preload is not CommonJS (has an import statement)')
  // It carries the channel names as plain data: a schema library in it is 200 kB parsed on every load.
  if (/\bzod\b|ZodError|\$ZodType|safeParse/.test(built.preload)) problems.push('the preload bundles zod')
  if (built.preload.length > maxPreloadBytes)
    problems.push(`the preload is ${built.preload.length} bytes (at most ${maxPreloadBytes})`)
  return problems
}
