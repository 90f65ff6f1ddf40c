import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..', '..')
// electron-builder reads its YAML with js-yaml; the test reads it the same way.
const yaml = createRequire(import.meta.url)('js-yaml') as { load(text: string): any }
const builder = yaml.load(readFileSync(join(root, 'electron-builder.yml'), 'utf8'))

function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file)
  expect(bytes.subarray(1, 4).toString('ascii'), `${file} is not a PNG`).toBe('PNG')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

describe('packaging', () => {
  it('builds AppImage and deb for Linux, dmg for macOS, NSIS for Windows', () => {
    expect(builder.linux.target).toEqual(['AppImage', 'deb'])
    expect(builder.mac.target).toEqual(['dmg'])
    expect(builder.win.target).toEqual(['nsis'])
    expect(builder.extraMetadata.main).toBe('out/main/index.js')
  })

  it('unpacks the N-API native modules from the asar without rebuilding them', () => {
    expect(builder.npmRebuild).toBe(false)
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(Object.keys(pkg.dependencies).sort()).toEqual(['better-sqlite3', 'keytar'])
    for (const [module, binary] of [
      ['better-sqlite3', `prebuilds/${process.platform}-${process.arch}.node`],
      ['keytar', 'build/Release/keytar.node'],
    ] as const) {
      expect(builder.asarUnpack).toContain(`node_modules/${module}/**`)
      expect(existsSync(join(root, 'node_modules', module, binary)), `${module}'s ${binary}`).toBe(true)
    }
  })

  it('has the icons every installer needs, rendered from build/icon.svg', () => {
    expect(readFileSync(join(root, 'build', 'icon.svg'), 'utf8')).toMatch(/^<svg /)
    expect(pngSize(join(root, builder.mac.icon))).toEqual({ width: 1024, height: 1024 })
    const linuxIcons = readdirSync(join(root, builder.linux.icon)).filter((f) => f.endsWith('.png'))
    expect(linuxIcons.length).toBeGreaterThanOrEqual(6)
    for (const name of linuxIcons) {
      const n = Number(name.split('x')[0])
      expect(pngSize(join(root, builder.linux.icon, name)), name).toEqual({ width: n, height: n })
    }
    const ico = readFileSync(join(root, builder.win.icon))
    expect(ico.readUInt16LE(2)).toBe(1) // type 1: icon
    const sizes = Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico[6 + i * 16] || 256)
    expect(sizes).toEqual(expect.arrayContaining([16, 32, 48, 256]))
  })

  it('has npm run dist, and stamps the build shown in About into the built main bundle', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
    expect(pkg.scripts.dist).toMatch(/electron-vite build && electron-builder/)
    const chunks = readdirSync(join(root, 'out', 'main', 'chunks'))
      .filter((f) => f.endsWith('.js'))
      .map((f) => readFileSync(join(root, 'out', 'main', 'chunks', f), 'utf8'))
    const main = [readFileSync(join(root, 'out', 'main', 'index.js'), 'utf8'), ...chunks].join('\n')
    const stamp = /var build = "([^"]*)"/.exec(main)
    expect(stamp, 'no build stamp in out/main: is the define in electron.vite.config.ts gone?').not.toBeNull()
    expect(stamp![1]).toMatch(/^(\S+ \d{4}-\d\d-\d\d \d\d:\d\dZ|.+)$/)
    expect(stamp![1]).not.toBe('dev')
    expect(main).not.toContain('process.env.WATCHDESK_BUILD')
  })
})
