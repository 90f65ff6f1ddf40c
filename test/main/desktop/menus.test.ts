import { describe, expect, it } from 'vitest'
import { aboutText, applicationMenu, closeAction, trayMenu } from '../../../src/main/desktop/menus'
import type { MenuItem } from '../../../src/main/desktop/menus'

const roles = (items: MenuItem[]): string[] =>
  items.flatMap((i) => [...(i.role ? [i.role] : []), ...roles(i.submenu ?? [])])
const noop = { about: () => {}, openDataDir: () => {}, showView: () => {} }

describe('application menu', () => {
  it('has the usual roles on every platform: edit, zoom, full screen, window', () => {
    for (const platform of ['linux', 'win32', 'darwin'] as const) {
      const r = roles(applicationMenu({ platform, appName: 'watchdesk', packaged: true, actions: noop }))
      expect(r).toEqual(
        expect.arrayContaining([
          'undo',
          'redo',
          'cut',
          'copy',
          'paste',
          'selectAll',
          'resetZoom',
          'zoomIn',
          'zoomOut',
          'togglefullscreen',
          'windowMenu',
        ]),
      )
    }
  })

  it('has the app menu with hide and quit on macOS, and quit under File elsewhere', () => {
    const mac = applicationMenu({ platform: 'darwin', appName: 'watchdesk', packaged: true, actions: noop })
    expect(mac[0]!.label).toBe('watchdesk')
    expect(roles([mac[0]!])).toEqual(['services', 'hide', 'hideOthers', 'unhide', 'quit'])
    const linux = applicationMenu({ platform: 'linux', appName: 'watchdesk', packaged: true, actions: noop })
    expect(linux[0]!.label).toBe('File')
    expect(roles([linux[0]!])).toEqual(['quit'])
  })

  it('leaves reload and developer tools out of packaged builds', () => {
    expect(
      roles(applicationMenu({ platform: 'linux', appName: 'watchdesk', packaged: true, actions: noop })),
    ).not.toContain('toggleDevTools')
    expect(
      roles(applicationMenu({ platform: 'linux', appName: 'watchdesk', packaged: false, actions: noop })),
    ).toContain('toggleDevTools')
  })

  it('opens views with CmdOrCtrl+digit and About from Help', () => {
    const shown: string[] = []
    let about = 0
    const menu = applicationMenu({
      platform: 'linux',
      appName: 'watchdesk',
      packaged: true,
      actions: { ...noop, showView: (r) => shown.push(r), about: () => about++ },
    })
    const go = menu.find((m) => m.label === 'Go')!.submenu!
    expect(go.map((i) => i.accelerator)).toEqual([
      'CmdOrCtrl+1',
      'CmdOrCtrl+2',
      'CmdOrCtrl+3',
      'CmdOrCtrl+4',
      'CmdOrCtrl+5',
      'CmdOrCtrl+6',
    ])
    go[2]!.click!()
    expect(shown).toEqual(['chains'])
    menu.find((m) => m.label === 'Help')!.submenu![0]!.click!()
    expect(about).toBe(1)
  })
})

describe('tray menu', () => {
  it('shows the summary and unseen count, and opens or quits', () => {
    const calls: string[] = []
    const menu = trayMenu({
      summary: 'chains: 1 down (Ethereum)',
      unseenAlerts: 2,
      actions: { open: () => calls.push('open'), quit: () => calls.push('quit') },
    })
    expect(menu.map((i) => i.label ?? i.type)).toEqual([
      'chains: 1 down (Ethereum)',
      '2 unseen alerting events',
      'separator',
      'Open watchdesk',
      'Quit watchdesk',
    ])
    expect(menu[0]!.enabled).toBe(false)
    menu.find((i) => i.label === 'Open watchdesk')!.click!()
    menu.find((i) => i.label === 'Quit watchdesk')!.click!()
    expect(calls).toEqual(['open', 'quit'])
    expect(
      trayMenu({ summary: 's', unseenAlerts: 0, actions: { open: () => {}, quit: () => {} } }),
    ).toHaveLength(4)
  })
})

describe('close to tray', () => {
  it('hides the window by default and closes it when turned off, when quitting or without a tray', () => {
    expect(closeAction({ closeToTray: true, quitting: false, trayShown: true })).toBe('hide')
    expect(closeAction({ closeToTray: false, quitting: false, trayShown: true })).toBe('close')
    expect(closeAction({ closeToTray: true, quitting: true, trayShown: true })).toBe('close')
    expect(closeAction({ closeToTray: true, quitting: false, trayShown: false })).toBe('close')
  })

  it('is on by default in the config (desktop.closeToTray)', async () => {
    const { Config } = await import('../../../src/shared/config')
    expect(Config.parse({}).desktop.closeToTray).toBe(true)
    expect(Config.parse({ desktop: { closeToTray: false } }).desktop.closeToTray).toBe(false)
    expect(Config.safeParse({ desktop: { closeToTray: 'yes' } }).success).toBe(false)
  })
})

describe('about', () => {
  it('shows the version and the build stamp', () => {
    expect(
      aboutText({
        appName: 'watchdesk',
        version: '0.1.0',
        build: 'd4ae585 2026-11-22 13:00Z',
        electron: '45.4.1',
      }),
    ).toEqual({
      title: 'watchdesk 0.1.0',
      detail: 'Version 0.1.0\nBuild d4ae585 2026-11-22 13:00Z\nElectron 45.4.1',
    })
  })
})

describe('views opened from the menu and notifications', () => {
  it('are exactly the console’s views, with the same digit keys', async () => {
    const { views } = await import('../../../src/main/desktop/menus')
    const { views: shared } = await import('../../../src/shared/views')
    expect(shared.map((v) => v.id)).toEqual(['overview', 'events', 'chains', 'wallets', 'alerts', 'settings'])
    expect(views.map((v) => [...v])).toEqual(shared.map((v) => [v.id, v.label, v.key]))
  })
})
