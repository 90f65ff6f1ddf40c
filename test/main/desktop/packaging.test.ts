import { execFile } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const root = join(import.meta.dirname, '..', '..', '..')
const require = createRequire(import.meta.url)
// electron-builder reads its YAML with js-yaml; the test reads it the same way.
const yaml = require('js-yaml') as { load(text: string): any }
const builder = yaml.load(readFileSync(join(root, 'electron-builder.yml'), 'utf8'))

function pngSize(file: string): { width: number; height: number } {
  const bytes = readFileSync(file)
  expect(bytes.subarray(1, 4).toString('ascii'), `${file} is not a PNG`).toBe('PNG')
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
}

describe('packaging configuration', () => {
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

  it("repeats every one of electron-builder's default deb dependencies, plus libsecret for keytar", () => {
    const FpmTarget = require('app-builder-lib/out/targets/FpmTarget').default
    const defaults: string[] = FpmTarget.prototype.getDefaultDepends.call(null, 'deb')
    expect(defaults).toContain('libgtk-3-0') // the lookup itself still works
    expect(builder.deb.depends).toEqual(expect.arrayContaining([...defaults, 'libsecret-1-0']))
  })

  it('uses the AppImage toolset that needs no libfuse2, and names the desktop entry after the app_id', () => {
    expect(builder.toolsets.appimage).toBe('1.0.3')
    expect(builder.extraMetadata.desktopName).toBe('watchdesk.desktop')
    expect(builder.linux.syncDesktopName).toBe(true)
    expect(builder.linux.executableName).toBe('watchdesk')
  })

  it('prepares macOS signing and notarization with the hardened runtime and the JIT entitlements', () => {
    expect(builder.mac).toMatchObject({
      hardenedRuntime: true,
      notarize: true,
      entitlements: 'build/entitlements.mac.plist',
    })
    const plist = readFileSync(join(root, builder.mac.entitlements), 'utf8')
    const granted = [...plist.matchAll(/<key>([^<]+)<\/key>\s*<true\/>/g)].map((m) => m[1])
    expect(granted).toEqual([
      'com.apple.security.cs.allow-jit',
      'com.apple.security.cs.allow-unsigned-executable-memory',
    ])
  })

  it('has the icons every installer needs, rendered from build/icon.svg', () => {
    expect(readFileSync(join(root, 'build', 'icon.svg'), 'utf8')).toMatch(/^<svg /)
    expect(pngSize(join(root, builder.mac.icon))).toEqual({ width: 1024, height: 1024 })
    const linuxIcons = readdirSync(join(root, builder.linux.icon))
      .filter((f) => f.endsWith('.png'))
      .sort((a, b) => parseInt(a) - parseInt(b))
    expect(linuxIcons).toEqual([
      '16x16.png',
      '32x32.png',
      '48x48.png',
      '64x64.png',
      '128x128.png',
      '256x256.png',
      '512x512.png',
    ])
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
    // `<commit> YYYY-MM-DD HH:MMZ` from a checkout, or exactly what CI put in WATCHDESK_BUILD.
    const expected = process.env.WATCHDESK_BUILD
      ? new RegExp(`^${process.env.WATCHDESK_BUILD.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)
      : /^[0-9a-f]{7,40} \d{4}-\d\d-\d\d \d\d:\d\dZ$/
    expect(stamp![1]).toMatch(expected)
    expect(main).not.toContain('process.env.WATCHDESK_BUILD')
  })
})

/** The real electron-builder packs the app (`--dir`, Linux x64) around a stand-in Electron
 * distribution: an executable that carries only Electron's fuse wire (sentinel, version 1, eight
 * fuses at Electron 45's defaults), so the file list it computes and the fuses it flips are its
 * own, without downloading Electron. */
describe('the app as electron-builder packs it', () => {
  const sentinel = 'dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'
  // RunAsNode, CookieEncryption, NodeOptions, NodeCliInspect, AsarIntegrity, OnlyAsar, V8Snapshot, FileProtocol
  const electronDefaults = '10110001'
  let work: string
  let files: string[]
  let unpacked: string[]
  let packagedJson: any
  let fuses: Record<string, number>

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'watchdesk-pack-'))
    const dist = join(work, 'electron-dist')
    mkdirSync(join(dist, 'resources'), { recursive: true })
    const binary = join(dist, 'electron')
    writeFileSync(
      binary,
      Buffer.concat([
        Buffer.from('#!/bin/sh\n# stand-in\n'),
        Buffer.from(sentinel),
        Buffer.from([1, electronDefaults.length]),
        Buffer.from(electronDefaults),
      ]),
    )
    chmodSync(binary, 0o755)
    writeFileSync(join(dist, 'LICENSE'), 'stand-in')
    await promisify(execFile)(
      process.execPath,
      [
        require.resolve('electron-builder/cli.js'),
        '--dir',
        '--linux',
        '--x64',
        '--publish',
        'never',
        `-c.electronDist=${dist}`,
        `-c.directories.output=${join(work, 'dist')}`,
        '-c.electronVersion=45.4.1',
      ],
      { cwd: root, timeout: 120_000, env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' } },
    )
    const resources = join(work, 'dist', 'linux-unpacked', 'resources')
    const asar = require('@electron/asar') as {
      listPackage(file: string): string[]
      extractFile(file: string, path: string): Buffer
    }
    files = asar.listPackage(join(resources, 'app.asar')).map((f) => f.replaceAll('\\', '/'))
    unpacked = readdirSync(join(resources, 'app.asar.unpacked'), { recursive: true, encoding: 'utf8' })
    packagedJson = JSON.parse(asar.extractFile(join(resources, 'app.asar'), 'package.json').toString())
    const { getCurrentFuseWire, FuseV1Options } = require('@electron/fuses')
    const wire = await getCurrentFuseWire(join(work, 'dist', 'linux-unpacked', 'watchdesk'))
    fuses = Object.fromEntries(
      Object.entries(wire)
        .filter(([k]) => k !== 'version')
        .map(([k, v]) => [FuseV1Options[Number(k)], v as number]),
    )
  }, 150_000)

  afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true })
  })

  it('packs the built app and both native modules with only this platform’s better-sqlite3 binary', () => {
    for (const f of [
      '/out/main/index.js',
      '/out/preload/index.cjs',
      '/out/renderer/index.html',
      '/package.json',
    ])
      expect(files).toContain(f)
    expect(files.filter((f) => f.includes('/prebuilds/') && f.endsWith('.node'))).toEqual([
      `/node_modules/better-sqlite3/prebuilds/${process.platform}-x64.node`,
    ])
    expect(files).toContain('/node_modules/keytar/build/Release/keytar.node')
    expect(unpacked).toContain(
      join('node_modules', 'better-sqlite3', 'prebuilds', `${process.platform}-x64.node`),
    )
  })

  it('leaves out better-sqlite3’s C sources, the anvil binary, source maps and the benches', () => {
    const left = files.filter(
      (f) =>
        f.startsWith('/node_modules/better-sqlite3/deps') ||
        f.startsWith('/node_modules/better-sqlite3/src') ||
        f.startsWith('/node_modules/@foundry-rs') ||
        f.endsWith('.map') ||
        f.startsWith('/out/bench'),
    )
    expect(left).toEqual([])
    // The stand-in would be renamed to the executable and nothing else added beside it.
    expect(readdirSync(join(work, 'dist', 'linux-unpacked')).sort()).toEqual([
      'LICENSE.electron.txt',
      'resources',
      'watchdesk',
    ])
  })

  it('writes desktopName into the packaged package.json', () => {
    expect(packagedJson).toMatchObject({ main: 'out/main/index.js', desktopName: 'watchdesk.desktop' })
  })

  it('flips the fuses: no run-as-node, no NODE_OPTIONS or --inspect, asar only and checked, cookies encrypted', () => {
    const on = 49
    const off = 48
    expect(fuses).toEqual({
      RunAsNode: off,
      EnableCookieEncryption: on,
      EnableNodeOptionsEnvironmentVariable: off,
      EnableNodeCliInspectArguments: off,
      EnableEmbeddedAsarIntegrityValidation: on,
      OnlyLoadAppFromAsar: on,
      LoadBrowserProcessSpecificV8Snapshot: off,
      GrantFileProtocolExtraPrivileges: on,
    })
  })
})
