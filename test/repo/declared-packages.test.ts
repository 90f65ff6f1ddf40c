import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
  optionalDependencies?: Record<string, string>
}
const declared = new Set([
  ...Object.keys(pkg.dependencies),
  ...Object.keys(pkg.devDependencies),
  ...Object.keys(pkg.optionalDependencies ?? {}),
])
const builtins = new Set(builtinModules)

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return filesUnder(path)
    return /\.(ts|tsx|mjs|js)$/.test(name) ? [path] : []
  })
}

/** The package a bare specifier names: `@scope/name/deep` → `@scope/name`, `name/deep` → `name`. */
const packageOf = (specifier: string) =>
  specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!

/** Bare specifiers imported (statically, dynamically or by require) by a file. */
function importsOf(source: string): string[] {
  const found = source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\brequire\s*\(\s*|^import\s+)'([^'.][^']*)'/gm)
  return [...found].map((m) => m[1]!).filter((s) => !s.startsWith('node:') && !builtins.has(packageOf(s)))
}

describe('packages the tests, benchmarks and scripts use are declared', () => {
  it('every package imported under test/ and bench/ and by the configs is in package.json, not only reached through another package', () => {
    const files = [
      ...filesUnder(join(root, 'test')),
      ...filesUnder(join(root, 'bench')),
      ...['vitest.config.ts', 'electron.vite.config.ts', 'eslint.config.js'].map((f) => join(root, f)),
    ]
    const undeclared = files.flatMap((file) =>
      importsOf(readFileSync(file, 'utf8'))
        .map(packageOf)
        .filter((name) => !declared.has(name))
        .map((name) => `${relative(root, file)} imports ${name}`),
    )
    expect(undeclared).toEqual([])
    // The check itself sees imports: this file's own are found.
    expect(importsOf(readFileSync(import.meta.filename, 'utf8'))).toEqual(['vitest'])
  })

  it('every program an npm script runs comes from a declared package', () => {
    const binOwners = new Map<string, string>()
    for (const name of declared) {
      const file = join(root, 'node_modules', name, 'package.json')
      if (!existsSync(file)) continue // an optional dependency for another platform
      const manifest = JSON.parse(readFileSync(file, 'utf8')) as {
        bin?: string | Record<string, string>
      }
      const bins =
        typeof manifest.bin === 'string' ? { [name.split('/').pop()!]: manifest.bin } : manifest.bin
      for (const bin of Object.keys(bins ?? {})) binOwners.set(bin, name)
    }
    const local = new Set(['node', 'npm', 'bash', 'rm', 'cp', 'mkdir', 'cd', 'env'])
    const programs = Object.values(pkg.scripts).flatMap((line) =>
      line
        .split(/&&|\|\||;/)
        .map(
          (command) =>
            command
              .trim()
              .replace(/^([A-Z_]+=\S+\s+)+/, '')
              .split(/\s+/)[0]!,
        )
        .filter((program) => program && !local.has(program)),
    )
    expect(programs.length).toBeGreaterThan(0)
    expect([...new Set(programs)].filter((program) => !binOwners.has(program))).toEqual([])
  })
})
