import { EventEmitter } from 'node:events'
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { electronPaths, overlaps } from '../../../src/main/desktop/app-paths'
import { createNotificationKeeper } from '../../../src/main/desktop/notification-keeper'
import type { NotificationLike } from '../../../src/main/desktop/notification-keeper'
import { allowPermission } from '../../../src/main/desktop/permissions'
import { closeWithin } from '../../../src/main/desktop/quit'
import { createStartingGate, startingMessage } from '../../../src/main/desktop/starting-gate'
import type { Timer } from '../../../src/main/desktop/starting-gate'
import { trayHostAvailable } from '../../../src/main/desktop/tray-host'
import { isAppMainFrame } from '../../../src/main/desktop/trusted-frame'
import { trayBitmap, trayChanges, trayLook, trayState } from '../../../src/main/desktop/tray-status'
import { createFileLogger, openLogFile } from '../../../src/main/log'
import { methodNames } from '../../../src/shared/contract'
import type { ApiHandlers } from '../../../src/main/transport/dispatch'
import { ok } from '../../../src/shared/result'
import { toDisposable } from '../../../src/shared/disposable'
import { useTempDir } from '../../support/temp'

/** A timer the test fires by hand: no unit test here waits on the clock. */
function manualTimer() {
  const pending = new Map<number, () => void>()
  let next = 0
  const timer: Timer = (_ms, fire) => {
    const id = next++
    pending.set(id, fire)
    return toDisposable(() => pending.delete(id))
  }
  return { timer, fireAll: () => [...pending.values()].forEach((f) => f()), pending: () => pending.size }
}
const flush = () => new Promise((r) => setImmediate(r))

describe('permissions', () => {
  it('grants clipboard-sanitized-write to the app window’s top frame and nothing else', () => {
    expect(
      allowPermission({ permission: 'clipboard-sanitized-write', fromAppWindow: true, isMainFrame: true }),
    ).toBe(true)
    expect(
      allowPermission({ permission: 'clipboard-sanitized-write', fromAppWindow: true, isMainFrame: false }),
    ).toBe(false)
    expect(
      allowPermission({ permission: 'clipboard-sanitized-write', fromAppWindow: false, isMainFrame: true }),
    ).toBe(false)
    for (const permission of ['clipboard-read', 'notifications', 'media', 'geolocation', 'openExternal'])
      expect(allowPermission({ permission, fromAppWindow: true, isMainFrame: true }), permission).toBe(false)
  })
})

describe('IPC sender frame', () => {
  const main = {
    url: 'file:///opt/Apps%20100%%20local/out/renderer/index.html#/events',
    parent: null,
    processId: 4,
    routingId: 1,
  }

  it('trusts the window’s main frame itself, whatever its URL text, and the same process and routing id', () => {
    expect(isAppMainFrame(main, main, null)).toBe(true)
    expect(isAppMainFrame({ ...main }, main, null)).toBe(true)
  })

  it('refuses an iframe, another frame, a missing window and a main frame showing a remote page', () => {
    expect(isAppMainFrame({ ...main, parent: main }, main, null)).toBe(false)
    expect(isAppMainFrame({ ...main, routingId: 2 }, main, null)).toBe(false)
    expect(isAppMainFrame({ url: main.url, parent: null }, main, null)).toBe(false)
    expect(isAppMainFrame(main, null, null)).toBe(false)
    const remote = { ...main, url: 'https://evil.example/' }
    expect(isAppMainFrame(remote, remote, null)).toBe(false)
  })

  it('under npm run dev, trusts the dev server’s exact origin only', () => {
    const dev = { url: 'http://localhost:5173/#/chains', parent: null, processId: 1, routingId: 1 }
    expect(isAppMainFrame(dev, dev, 'http://localhost:5173')).toBe(true)
    expect(isAppMainFrame(dev, dev, 'http://localhost:5174')).toBe(false)
    expect(isAppMainFrame(main, main, 'http://localhost:5173')).toBe(false)
  })
})

describe('starting gate (window first)', () => {
  const backend = Object.fromEntries(
    methodNames.map((name) => [name, async (request: unknown) => ok({ name, request })]),
  ) as unknown as ApiHandlers

  it('holds a call until the back end opens, then answers it from the back end', async () => {
    const clock = manualTimer()
    const gate = createStartingGate({ holdMs: 10_000, timer: clock.timer })
    let answer: unknown = null
    void gate.handlers['app.health']({}).then((a) => (answer = a))
    await flush()
    expect(answer).toBeNull()
    expect(gate.waiting()).toBe(1)
    gate.open(backend)
    await flush()
    expect(answer).toEqual({ ok: true, value: { name: 'app.health', request: {} } })
    expect(clock.pending()).toBe(0)
    expect(gate.answeredStarting()).toBe(0)
  })

  it('answers "starting" once the hold runs out, and counts it so the page is reloaded later', async () => {
    const clock = manualTimer()
    const gate = createStartingGate({ holdMs: 10_000, timer: clock.timer })
    const answer = gate.handlers['events.list']({} as never)
    await flush()
    clock.fireAll()
    expect(await answer).toEqual({ ok: false, error: { code: 'unavailable', message: startingMessage } })
    expect(gate.answeredStarting()).toBe(1)
    gate.open(backend)
    expect(await gate.handlers['events.list']({} as never)).toMatchObject({ ok: true })
  })

  it('answers waiting calls with the start failure, not "starting"', async () => {
    const gate = createStartingGate({ holdMs: 10_000, timer: manualTimer().timer })
    const answer = gate.handlers['app.firstRun']({})
    gate.fail('The configuration in /d/config.json is not valid.')
    expect(await answer).toEqual({
      ok: false,
      error: { code: 'unavailable', message: 'The configuration in /d/config.json is not valid.' },
    })
  })
})

describe('bounded quit', () => {
  it('reports a close that finishes, one that throws and one that hangs past the time-out', async () => {
    expect(await closeWithin(async () => {}, 5000, manualTimer().timer)).toEqual({ outcome: 'closed' })
    const failed = await closeWithin(
      () => Promise.reject(new Error('database is locked')),
      5000,
      manualTimer().timer,
    )
    expect(failed).toMatchObject({ outcome: 'failed', error: { message: 'database is locked' } })
    const clock = manualTimer()
    const hanging = closeWithin(() => new Promise(() => {}), 5000, clock.timer)
    clock.fireAll()
    expect(await hanging).toEqual({ outcome: 'timed-out' })
  })
})

describe('notifications kept until clicked, closed or failed', () => {
  setFlagsFromString('--expose-gc')
  const gc = runInNewContext('gc') as () => void

  class FakeNotification extends EventEmitter implements NotificationLike {
    show() {}
  }

  async function collected(ref: WeakRef<object>): Promise<boolean> {
    // A WeakRef's target stays alive until the current job ends: collect in a later turn.
    for (let i = 0; i < 3; i++) {
      await flush()
      gc()
    }
    return ref.deref() === undefined
  }

  it('holds a shown notification (and its click handler) until it is clicked', async () => {
    const keeper = createNotificationKeeper(() => {})
    const clicks: string[] = []
    let ref!: WeakRef<FakeNotification>
    ;(() => {
      const n = new FakeNotification()
      ref = new WeakRef(n)
      keeper.show(n, () => clicks.push('events'))
    })()
    expect(await collected(ref)).toBe(false)
    ref.deref()!.emit('click')
    expect(clicks).toEqual(['events'])
    expect(keeper.size).toBe(0)
    expect(await collected(ref)).toBe(true)
  })

  it('lets go on close and on failure, and reports the failure', () => {
    const failures: string[] = []
    const keeper = createNotificationKeeper((e) => failures.push(e))
    const closed = new FakeNotification()
    const failed = new FakeNotification()
    keeper.show(closed, () => {})
    keeper.show(failed, () => {})
    expect(keeper.size).toBe(2)
    closed.emit('close')
    failed.emit('failed', {}, 'no notification server')
    expect(keeper.size).toBe(0)
    expect(failures).toEqual(['no notification server'])
  })
})

describe('tray host', () => {
  it('is always there on macOS and Windows', async () => {
    const never = async () => {
      throw new Error('not asked')
    }
    expect(await trayHostAvailable('darwin', {}, never)).toBe(true)
    expect(await trayHostAvailable('win32', {}, never)).toBe(true)
  })

  it('on Linux, is there only when a StatusNotifierWatcher owns its name on the session bus', async () => {
    const env = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus' }
    const asked: string[][] = []
    const reply = (text: string) => async (_file: string, args: string[]) => (asked.push(args), text)
    expect(await trayHostAvailable('linux', env, reply('method return\n   boolean true\n'))).toBe(true)
    expect(asked[0]).toContain('string:org.kde.StatusNotifierWatcher')
    expect(await trayHostAvailable('linux', env, reply('method return\n   boolean false\n'))).toBe(false)
    const noDbusSend = async () => {
      throw Object.assign(new Error('spawn dbus-send ENOENT'), { code: 'ENOENT' })
    }
    expect(await trayHostAvailable('linux', env, noDbusSend)).toBe(false)
    expect(await trayHostAvailable('linux', {}, reply('boolean true'))).toBe(false)
  })

  it.runIf(process.platform === 'linux' && Boolean(process.env.DBUS_SESSION_BUS_ADDRESS))(
    'asks the real session bus (test/with-keychain.sh has no tray host, like stock GNOME)',
    async () => {
      expect(await trayHostAvailable('linux', process.env)).toBe(false)
    },
  )
})

describe('Electron’s own folders apart from the data dir', () => {
  it('moves userData and sessionData out of the data dir on macOS', () => {
    const home = '/Users/op'
    const dataDir = '/Users/op/Library/Application Support/watchdesk'
    const paths = electronPaths({ platform: 'darwin', env: {}, home, dataDir, defaultUserData: dataDir })
    expect(paths).toEqual({
      userData: '/Users/op/Library/Application Support/dev.watchdesk.console',
      sessionData: '/Users/op/Library/Caches/dev.watchdesk.console',
    })
    expect(overlaps(paths!.userData, dataDir) || overlaps(paths!.sessionData, dataDir)).toBe(false)
  })

  it('puts Chromium’s session data in local app data on Windows', () => {
    const env = { APPDATA: 'C:/Users/op/AppData/Roaming', LOCALAPPDATA: 'C:/Users/op/AppData/Local' }
    const dataDir = 'C:/Users/op/AppData/Local/watchdesk'
    expect(
      electronPaths({
        platform: 'win32',
        env,
        home: 'C:/Users/op',
        dataDir,
        defaultUserData: 'C:/Users/op/AppData/Roaming/watchdesk',
      }),
    ).toEqual({
      userData: 'C:/Users/op/AppData/Roaming/dev.watchdesk.console',
      sessionData: 'C:/Users/op/AppData/Local/dev.watchdesk.console/Session',
    })
  })

  it('leaves Linux alone unless the data dir was pointed at Electron’s folder', () => {
    const base = {
      platform: 'linux' as const,
      env: {},
      home: '/home/op',
      defaultUserData: '/home/op/.config/watchdesk',
    }
    expect(electronPaths({ ...base, dataDir: '/home/op/.local/share/watchdesk' })).toBeNull()
    expect(electronPaths({ ...base, dataDir: '/home/op/.config/watchdesk' })).toEqual({
      userData: '/home/op/.config/dev.watchdesk.console',
      sessionData: '/home/op/.cache/dev.watchdesk.console',
    })
  })

  it('moves beside a data dir that would contain Electron’s folders', () => {
    const paths = electronPaths({
      platform: 'darwin',
      env: {},
      home: '/Users/op',
      dataDir: '/Users/op/Library',
      defaultUserData: '/x',
    })
    expect(overlaps(paths!.userData, '/Users/op/Library')).toBe(false)
    expect(overlaps(paths!.sessionData, '/Users/op/Library')).toBe(false)
  })
})

describe('tray look', () => {
  it('draws premultiplied pixels: no colour channel above its alpha, so no bright fringe', () => {
    for (const level of ['good', 'warn', 'bad', 'idle'] as const) {
      for (const size of [16, 32]) {
        const px = trayBitmap(level, size)
        let edge = 0
        for (let i = 0; i < px.length; i += 4) {
          const a = px[i + 3]!
          expect(
            Math.max(px[i]!, px[i + 1]!, px[i + 2]!),
            `${level}@${size} pixel ${i / 4}`,
          ).toBeLessThanOrEqual(a)
          if (a > 0 && a < 255) edge++
        }
        expect(edge, 'the dot is antialiased').toBeGreaterThan(size)
      }
    }
  })

  it('changes only what differs: the same state again changes nothing', () => {
    const chains = [{ serviceId: 1, name: 'Ethereum', status: 'healthy' as const }]
    const first = trayLook(trayState(chains, 0))
    expect(trayChanges(null, first)).toEqual(['level', 'tooltip', 'menu', 'badge'])
    expect(trayChanges(first, trayLook(trayState(chains, 0)))).toEqual([])
    expect(trayChanges(first, trayLook(trayState(chains, 1)))).toEqual(['level', 'tooltip', 'menu', 'badge'])
    const lagging = [{ ...chains[0]!, status: 'lagging' as const }]
    expect(trayChanges(first, trayLook(trayState(lagging, 0)))).toEqual(['level', 'tooltip', 'menu'])
  })
})

describe('log file', () => {
  const tempDir = useTempDir()

  it('writes JSON lines to watchdesk.log in the data dir, 0600 even when the file was wider', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'watchdesk.log'), '', { mode: 0o644 })
    const file = openLogFile(dir)
    const log = createFileLogger(file)
    log.warn('listener stopped', { port: 7421 })
    file.close()
    expect(statSync(join(dir, 'watchdesk.log')).mode & 0o777).toBe(0o600)
    const lines = readFileSync(join(dir, 'watchdesk.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
    expect(lines).toEqual([expect.objectContaining({ level: 'warn', msg: 'listener stopped', port: 7421 })])
    expect(log.file).toBe(join(dir, 'watchdesk.log'))
  })

  it('rotates past maxBytes into .1, .2, .3 and drops the oldest', () => {
    const dir = tempDir()
    const file = openLogFile(dir, { maxBytes: 100, keep: 3 })
    for (let i = 0; i < 6; i++) file.write(`line ${i} ${'x'.repeat(80)}`)
    file.close()
    expect(readdirSync(dir).sort()).toEqual([
      'watchdesk.log',
      'watchdesk.log.1',
      'watchdesk.log.2',
      'watchdesk.log.3',
    ])
    expect(readFileSync(join(dir, 'watchdesk.log'), 'utf8')).toMatch(/^line 5 /)
    expect(readFileSync(join(dir, 'watchdesk.log.3'), 'utf8')).toMatch(/^line 2 /)
    for (const f of readdirSync(dir)) expect(statSync(join(dir, f)).mode & 0o777, f).toBe(0o600)
  })
})
